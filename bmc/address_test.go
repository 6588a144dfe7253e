package bmc_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/bmc"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestParseAddressTable(t *testing.T) {
	tests := []struct {
		in   string
		want bmc.Address
	}{
		{"redfish://10.0.0.5/redfish/v1/Systems/1",
			bmc.Address{Kind: bmc.KindRedfish, Boot: bmc.BootMethodPXE, Scheme: "https", Host: "10.0.0.5", SystemPath: "/redfish/v1/Systems/1"}},
		{"redfish+http://bmc.example:8000/redfish/v1/Systems/abc-1/",
			bmc.Address{Kind: bmc.KindRedfish, Boot: bmc.BootMethodPXE, Scheme: "http", Host: "bmc.example:8000", SystemPath: "/redfish/v1/Systems/abc-1"}},
		{"redfish-virtualmedia+https://[fd00::5]:8443/redfish/v1/Systems/1",
			bmc.Address{Kind: bmc.KindRedfish, Boot: bmc.BootMethodVirtualMedia, Scheme: "https", Host: "[fd00::5]:8443", SystemPath: "/redfish/v1/Systems/1"}},
		{"redfish-uefihttp://h/redfish/v1/Systems/1",
			bmc.Address{Kind: bmc.KindRedfish, Boot: bmc.BootMethodUEFIHTTP, Scheme: "https", Host: "h", SystemPath: "/redfish/v1/Systems/1"}},
		{"idrac-virtualmedia://10.1.1.1",
			bmc.Address{Kind: bmc.KindIDRAC, Boot: bmc.BootMethodVirtualMedia, Scheme: "https", Host: "10.1.1.1", SystemPath: "/redfish/v1/Systems/System.Embedded.1"}},
		{"IDRAC-REDFISH+HTTP://10.1.1.1/redfish/v1/Systems/System.Embedded.1",
			bmc.Address{Kind: bmc.KindIDRAC, Boot: bmc.BootMethodPXE, Scheme: "http", Host: "10.1.1.1", SystemPath: "/redfish/v1/Systems/System.Embedded.1"}},
		{"ilo5-redfish://ilo.rack1",
			bmc.Address{Kind: bmc.KindILO5, Boot: bmc.BootMethodPXE, Scheme: "https", Host: "ilo.rack1", SystemPath: "/redfish/v1/Systems/1"}},
		{"ilo5-virtualmedia+http://ilo.rack1:80/redfish/v1/Systems/1",
			bmc.Address{Kind: bmc.KindILO5, Boot: bmc.BootMethodVirtualMedia, Scheme: "http", Host: "ilo.rack1:80", SystemPath: "/redfish/v1/Systems/1"}},
		{"redfish://10.0.0.5",
			bmc.Address{Kind: bmc.KindRedfish, Boot: bmc.BootMethodPXE, Scheme: "https", Host: "10.0.0.5"}},
	}
	for _, tt := range tests {
		got, err := bmc.ParseAddress(tt.in)
		if err != nil {
			t.Errorf("ParseAddress(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseAddress(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		again, err := bmc.ParseAddress(got.String())
		if err != nil || again != got {
			t.Errorf("String() %q does not round-trip: %+v, %v", got.String(), again, err)
		}
	}
}

func TestParseAddressErrors(t *testing.T) {
	bad := []string{
		"", "10.0.0.5", "ipmi://10.0.0.5", "redfish+ftp://h", "redfish://",
		"redfish:///redfish/v1/Systems/1", "redfish://h:0", "redfish://h:70000", "redfish://h:",
		"redfish://h/redfish/v1/Managers/1", "redfish://h/redfish/v1/Systems/", "redfish://h/redfish/v1/Systems/a/b",
		"redfish://h/redfish/v1/Systems/1?x=1", "redfish://h#frag", "redfish://fd00::1/redfish/v1/Systems/1",
		"redfish://-bad-/redfish/v1/Systems/1", "redfish://h/redfish/v1/Systems/a%20b", "redfish://[nothost]/",
	}
	for _, in := range bad {
		_, err := bmc.ParseAddress(in)
		if !errors.Is(err, bmc.ErrBadAddress) {
			t.Errorf("ParseAddress(%q) = %v, want ErrBadAddress", in, err)
			continue
		}
		for _, s := range bmc.AcceptedSchemes() {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error for %q does not list scheme %s: %v", in, s, err)
			}
		}
	}
}

func TestParseAddressHidesCredentials(t *testing.T) {
	for _, in := range []string{
		"redfish://admin:S3cretPw@10.0.0.5/redfish/v1/Systems/1",
		"admin:S3cretPw@10.0.0.5",
		"redfish+S3cretPw@x://h",
	} {
		_, err := bmc.ParseAddress(in)
		if err == nil {
			t.Fatalf("ParseAddress(%q) accepted credentials", in)
		}
		if strings.Contains(err.Error(), "S3cretPw") {
			t.Errorf("error leaks the password: %v", err)
		}
	}
}

func TestCredentialsNeverPrintPassword(t *testing.T) {
	c := bmc.Credentials{Username: "root", Password: "calvin-S3cret"}
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s", c, c, c, c), c.LogValue().String()} {
		if strings.Contains(s, "calvin-S3cret") {
			t.Errorf("credentials printed the password: %s", s)
		}
	}
}

// TestParseAddressGolden parses every line of testdata/addresses.txt and
// compares the results with testdata/addresses.golden (-update rewrites it).
func TestParseAddressGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "addresses.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimRight(string(in), "\n"), "\n") {
		a, err := bmc.ParseAddress(line)
		if err != nil {
			fmt.Fprintf(&out, "%s\n  error: %v\n", line, err)
			continue
		}
		fmt.Fprintf(&out, "%s\n  kind=%s boot=%s scheme=%s host=%s system=%q endpoint=%s canonical=%s\n",
			line, a.Kind, a.Boot, a.Scheme, a.Host, a.SystemPath, a.Endpoint(), a)
	}
	golden := filepath.Join("testdata", "addresses.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("parse results differ from %s (run with -update to accept):\n%s", golden, out.String())
	}
}

func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{
		"redfish://10.0.0.5/redfish/v1/Systems/1", "idrac-virtualmedia+http://[::1]:8000",
		"ilo5-redfish://h.example/redfish/v1/Systems/1/", "redfish-uefihttp+https://h:1/redfish/v1/Systems/x.y_z-1",
		"redfish://u:p@h", "redfish://h?q", "://", "redfish+://h",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := bmc.ParseAddress(s)
		if err != nil {
			if !errors.Is(err, bmc.ErrBadAddress) {
				t.Fatalf("error without ErrBadAddress: %v", err)
			}
			if scheme, rest, ok := strings.Cut(s, "://"); ok {
				if i := strings.LastIndex(rest, "@"); i > 3 {
					secret := rest[:i]
					if !strings.Contains(rest[i:], secret) && !strings.Contains(scheme, secret) &&
						strings.Contains(strings.Split(err.Error(), "; accepted")[0], secret) &&
						!strings.Contains("bad BMC address", secret) {
						t.Fatalf("error echoes userinfo %q: %v", secret, err)
					}
				}
			}
			return
		}
		if a.Scheme != "http" && a.Scheme != "https" || a.Host == "" {
			t.Fatalf("accepted %q as %+v", s, a)
		}
		again, err := bmc.ParseAddress(a.String())
		if err != nil || again != a {
			t.Fatalf("%q: canonical %q does not round-trip: %+v %v", s, a.String(), again, err)
		}
	})
}

func TestBootDevice(t *testing.T) {
	for in, want := range map[string]bmc.BootDevice{
		"redfish://h": bmc.BootPxe, "idrac-redfish://h": bmc.BootPxe, "ilo5-redfish+http://h": bmc.BootPxe,
		"redfish-virtualmedia://h": bmc.BootCd, "idrac-virtualmedia://h": bmc.BootCd, "ilo5-virtualmedia://h": bmc.BootCd,
		"redfish-uefihttp://h": bmc.BootUefiHTTP,
	} {
		a, err := bmc.ParseAddress(in)
		if err != nil || a.BootDevice() != want {
			t.Errorf("%s: BootDevice() = %v (%v), want %v", in, a.BootDevice(), err, want)
		}
	}
}

func TestRetryable(t *testing.T) {
	for err, want := range map[error]bool{
		nil: false, bmc.ErrBadCredentials: false, bmc.ErrUnsupported: false, bmc.ErrBadAddress: false,
		fmt.Errorf("x: %w", bmc.ErrUnreachable): true, fmt.Errorf("x: %w", bmc.ErrBMC): true,
		errors.New("other"): false,
	} {
		if got := bmc.Retryable(err); got != want {
			t.Errorf("Retryable(%v) = %v, want %v", err, got, want)
		}
	}
}
