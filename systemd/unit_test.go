package systemd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	unit = "rackbootd.service"
	// rackDropIn is the drop-in an operator enables on a rack member with
	// a service address (installed as /usr/share/rackboot/systemd/rack.conf).
	rackDropIn = "rackbootd-rack.conf"
)

// stageUnit copies the unit into a temporary directory with ExecStart
// pointing at an executable that exists here (the test binary), since
// systemd-analyze verify checks that the command is there.
func stageUnit(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze is not installed")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("ExecStart=/usr/bin/rackbootd ")) {
		t.Fatal("ExecStart does not run /usr/bin/rackbootd")
	}
	data = bytes.ReplaceAll(data, []byte("/usr/bin/rackbootd"), []byte(self))
	path := filepath.Join(t.TempDir(), unit)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// stageRackUnit stages the unit with the rack drop-in enabled next to it
// (rackbootd.service.d/rack.conf), where systemd-analyze looks for drop-ins
// of a unit file it is given.
func stageRackUnit(t *testing.T) string {
	t.Helper()
	path := stageUnit(t)
	data, err := os.ReadFile(rackDropIn)
	if err != nil {
		t.Fatal(err)
	}
	dir := path + ".d"
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rack.conf"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestVerify fails on anything systemd-analyze verify prints: it exits 0
// for unknown keys and bad values, reporting them only as warnings.
func TestVerify(t *testing.T) {
	path := stageUnit(t)
	out, err := exec.Command("systemd-analyze", "verify", path).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestVerifyCatchesMistakes shows that TestVerify can fail.
func TestVerifyCatchesMistakes(t *testing.T) {
	path := stageUnit(t)
	data, _ := os.ReadFile(path)
	data = bytes.Replace(data, []byte("NoNewPrivileges=yes"), []byte("NoNewPrivilege=yes"), 1)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command("systemd-analyze", "verify", path).CombinedOutput()
	if !strings.Contains(string(out), "Unknown key") {
		t.Fatalf("a misspelt key went unnoticed: %q", out)
	}
}

// TestSecurityExposure keeps systemd's exposure score of the unit low
// ("OK" is below 4.0; the unit scores about 1.5).
func TestSecurityExposure(t *testing.T) {
	path := stageUnit(t)
	out, err := exec.Command("systemd-analyze", "security", "--offline=yes", "--threshold=20", path).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
}

func TestUnitSettings(t *testing.T) {
	data, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"Type=notify",
		"ExecStart=/usr/bin/rackbootd --config /etc/rackboot/rackboot.toml",
		"ExecReload=/usr/bin/rackbootd check-config /etc/rackboot/rackboot.toml",
		"ExecReload=/bin/kill -HUP $MAINPID",
		"AmbientCapabilities=CAP_NET_BIND_SERVICE",
		"CapabilityBoundingSet=CAP_NET_BIND_SERVICE",
		"StateDirectory=rackboot",
		"User=rackboot",
		"ProtectSystem=strict",
		"NoNewPrivileges=yes",
	} {
		if !bytes.Contains(data, []byte("\n"+line+"\n")) {
			t.Errorf("%s lacks %q", unit, line)
		}
	}
	if !bytes.Contains(data, []byte("\nWatchdogSec=")) {
		t.Errorf("%s has no WatchdogSec", unit)
	}
}

// TestSysusersAndTmpfiles applies the snippets to a temporary root with
// systemd's own tools: the user exists and owns the state directory.
func TestSysusersAndTmpfiles(t *testing.T) {
	for _, tool := range []string{"systemd-sysusers", "systemd-tmpfiles"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	root := t.TempDir()
	for _, d := range []string{"etc", "var/lib"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sysusers, _ := filepath.Abs("rackboot-sysusers.conf")
	if out, err := exec.Command("systemd-sysusers", "--root="+root, sysusers).CombinedOutput(); err != nil {
		t.Fatalf("systemd-sysusers: %v\n%s", err, out)
	}
	passwd, err := os.ReadFile(filepath.Join(root, "etc/passwd"))
	if err != nil || !strings.Contains(string(passwd), "rackboot:x:") {
		t.Fatalf("no rackboot user in /etc/passwd: %v\n%s", err, passwd)
	}
	tmpfiles, _ := filepath.Abs("rackboot-tmpfiles.conf")
	if out, err := exec.Command("systemd-tmpfiles", "--create", "--root="+root, tmpfiles).CombinedOutput(); err != nil {
		t.Fatalf("systemd-tmpfiles: %v\n%s", err, out)
	}
	fi, err := os.Stat(filepath.Join(root, "var/lib/rackboot"))
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o750 {
		t.Fatalf("state directory: %v %v", fi, err)
	}
}

// TestVerifyRack checks the unit with the rack drop-in enabled, as
// TestVerify checks it alone.
func TestVerifyRack(t *testing.T) {
	path := stageRackUnit(t)
	out, err := exec.Command("systemd-analyze", "verify", path).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("systemd-analyze verify with %s: %v\n%s", rackDropIn, err, out)
	}
}

// TestVerifyRackCatchesMistakes shows that systemd-analyze verify reads
// the staged drop-in: a misspelt key in it is reported.
func TestVerifyRackCatchesMistakes(t *testing.T) {
	path := stageRackUnit(t)
	dropIn := filepath.Join(path+".d", "rack.conf")
	data, _ := os.ReadFile(dropIn)
	data = bytes.Replace(data, []byte("ProcSubset=all"), []byte("ProcSubst=all"), 1)
	if err := os.WriteFile(dropIn, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command("systemd-analyze", "verify", path).CombinedOutput()
	if !strings.Contains(string(out), "Unknown key 'ProcSubst'") {
		t.Fatalf("a misspelt key in the drop-in went unnoticed: %q", out)
	}
}

// exposure is what systemd-analyze security --offline says of a unit file:
// the lines of the settings it counts against the unit ("✗ ...") and the
// overall score line.
func exposure(t *testing.T, path string) (failed []string, overall string) {
	t.Helper()
	out, err := exec.Command("systemd-analyze", "security", "--offline=yes", "--threshold=20", path).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security %s: %v\n%s", path, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "✗ "):
			failed = append(failed, strings.Fields(line)[1])
		case strings.Contains(line, "Overall exposure level"):
			overall = line
		}
	}
	return failed, overall
}

// TestRackSecurityExposure: with the rack drop-in, the unit stays "OK"
// (below 2.0, where the unit alone scores about 1.4 and the rack about 1.8),
// and the only settings systemd counts against it beyond the unit's own are
// the ones the service address needs: packet and netlink sockets,
// CAP_NET_ADMIN and the visible /proc/sys (CAP_NET_RAW is in the group of
// CAP_NET_BIND_SERVICE, already granted).
func TestRackSecurityExposure(t *testing.T) {
	base, baseScore := exposure(t, stageUnit(t))
	rack, rackScore := exposure(t, stageRackUnit(t))
	t.Logf("unit: %s\nwith %s: %s", baseScore, rackDropIn, rackScore)
	var added []string
	for _, setting := range rack {
		if !slices.Contains(base, setting) {
			added = append(added, setting)
		}
	}
	want := []string{
		"RestrictAddressFamilies=~AF_PACKET",
		"RestrictAddressFamilies=~AF_NETLINK",
		"CapabilityBoundingSet=~CAP_NET_ADMIN",
		"ProcSubset=",
	}
	slices.Sort(added)
	slices.Sort(want)
	if !slices.Equal(added, want) {
		t.Errorf("the rack drop-in loosens %v, want exactly %v", added, want)
	}
}

// TestRackDropInSettings checks the drop-in grants what vip/ uses, adding
// to the unit's lists rather than replacing them.
func TestRackDropInSettings(t *testing.T) {
	data, err := os.ReadFile(rackDropIn)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"[Service]",
		"AmbientCapabilities=CAP_NET_ADMIN CAP_NET_RAW",
		"CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_RAW",
		"RestrictAddressFamilies=AF_NETLINK AF_PACKET",
		"ReadWritePaths=/proc/sys/net/ipv4/conf",
	} {
		if !bytes.Contains(data, []byte("\n"+line+"\n")) {
			t.Errorf("%s lacks %q", rackDropIn, line)
		}
	}
	// An empty assignment would reset the unit's list (dropping
	// CAP_NET_BIND_SERVICE, AF_INET...), so there is none.
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasSuffix(line, "=") {
			t.Errorf("%s resets a setting: %q", rackDropIn, line)
		}
	}
}
