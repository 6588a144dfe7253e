package image

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cavaliergopher/cpio"
)

func fakeDiscoveryInputs(t *testing.T) DiscoveryInputs {
	t.Helper()
	in := DiscoveryInputs{InitrdInputs: fakeInputs(t), Extra: []string{efivarfs}}
	dir := t.TempDir()
	in.Modules[efivarfs] = filepath.Join(dir, "efivarfs.ko")
	in.Binaries = DiscoveryBinaries{Agent: filepath.Join(dir, "agent"), Ignition: filepath.Join(dir, "ignition")}
	for name, body := range map[string]string{in.Modules[efivarfs]: "module efivarfs", in.Binaries.Agent: "\x7fELF agent", in.Binaries.Ignition: "\x7fELF ignition"} {
		if err := os.WriteFile(name, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return in
}

func TestWriteDiscoveryInitrd(t *testing.T) {
	in := fakeDiscoveryInputs(t)
	var a, b bytes.Buffer
	if err := WriteDiscoveryInitrd(&a, in); err != nil {
		t.Fatal(err)
	}
	if err := WriteDiscoveryInitrd(&b, in); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two builds from the same inputs differ")
	}
	names, entries := readInitrd(t, a.Bytes())
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Errorf("%s is in the archive twice", n)
		}
		seen[n] = true
	}
	exe := cpio.FileMode(cpio.TypeReg | 0o755)
	want := map[string]struct {
		mode cpio.FileMode
		body string
	}{
		"usr/local/bin/rackboot-agent": {exe, "\x7fELF agent"},
		"usr/bin/ignition":             {exe, "\x7fELF ignition"},
		"bin/busybox":                  {exe, "\x7fELF busybox"},
		"usr/sbin/useradd":             {exe, useraddScript},
		"usr/sbin/usermod":             {exe, usermodScript},
		"usr/sbin/groupadd":            {exe, groupaddScript},
		"etc/shadow":                   {cpio.TypeReg | 0o600, "root:*:19000:0:99999:7:::\n"},
		"lib/modules/efivarfs.ko":      {cpio.TypeReg | 0o644, "module efivarfs"},
	}
	for name, w := range want {
		if e, ok := entries[name]; !ok || e.mode != w.mode || e.body != w.body {
			t.Errorf("%s = %+v (present %t), want mode %o", name, e, ok, w.mode)
		}
	}
	init := entries["init"]
	for _, s := range []string{"for m in " + strings.Join(Modules(), " ") + "; do", "--platform=file",
		"conf=/etc/rackboot/agent.conf", "rackboot-agent --config $conf", "efivarfs"} {
		if !strings.Contains(init.body, s) {
			t.Errorf("/init lacks %q", s)
		}
	}
	for _, m := range []string{MarkerIgnitionApplied, MarkerIgnitionLog, MarkerAgentStart, MarkerAgentLog, MarkerAgentExit, MarkerReady, MarkerError} {
		if !strings.Contains(init.body, m) {
			t.Errorf("/init never prints %s", m)
		}
	}
	if strings.Contains(init.body, "poweroff -f") {
		t.Error("the discovery /init powers the machine off")
	}
	if !strings.Contains(AgentPath, "rackboot-agent") || entries["etc/udhcpc.script"].body != udhcpcScript {
		t.Error("udhcpc script missing")
	}
}

func TestWriteDiscoveryInitrdMissingInput(t *testing.T) {
	in := fakeDiscoveryInputs(t)
	delete(in.Modules, efivarfs)
	if err := WriteDiscoveryInitrd(io.Discard, in); !errors.Is(err, ErrInitrd) {
		t.Errorf("without efivarfs: %v, want ErrInitrd", err)
	}
	in = fakeDiscoveryInputs(t)
	in.Binaries.Agent = filepath.Join(t.TempDir(), "missing")
	if err := WriteDiscoveryInitrd(io.Discard, in); !errors.Is(err, ErrInitrd) {
		t.Errorf("without the agent: %v, want ErrInitrd", err)
	}
}

// TestDiscoveryInitGolden pins the discovery /init (go test -update).
func TestDiscoveryInitGolden(t *testing.T) {
	golden := filepath.Join("testdata", "discovery-init.golden")
	got := discoveryInit(Modules())
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the discovery /init differs from %s (run go test -update and review the diff)", golden)
	}
}

func TestDiscoveryKeyFollowsBinaries(t *testing.T) {
	in := fakeDiscoveryInputs(t)
	if _, err := os.Stat(DefaultBusybox); err != nil {
		t.Skip("no busybox-static")
	}
	k1, err := discoveryKey("linux-image-x.deb", in.Binaries)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in.Binaries.Agent, []byte("\x7fELF agent v2"), 0o755); err != nil {
		t.Fatal(err)
	}
	k2, err := discoveryKey("linux-image-x.deb", in.Binaries)
	if err != nil {
		t.Fatal(err)
	}
	if k1 == k2 {
		t.Error("a new agent binary does not change the image's cache key")
	}
	if _, err := discoveryKey("x.deb", DiscoveryBinaries{Agent: "/nonexistent", Ignition: in.Binaries.Ignition}); !errors.Is(err, ErrBinary) {
		t.Errorf("missing agent: %v, want ErrBinary", err)
	}
}
