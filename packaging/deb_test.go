package packaging

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// testVersion is what the tests pass to build-deb.sh.
const testVersion = "v1.2.3-4-gabcdef0-dirty"

// built is the package built once for all tests (in dir), or why it could
// not be.
var built struct {
	once sync.Once
	dir  string
	deb  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildDeb builds rackbootd and packages it with build-deb.sh, once; it
// returns the package's path.
func buildDeb(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"dpkg-deb", "dpkg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	built.once.Do(func() { built.deb, built.err = build() })
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.deb
}

func build() (string, error) {
	tmp, err := os.MkdirTemp("", "rackboot-deb-")
	if err != nil {
		return "", err
	}
	built.dir = tmp
	bin := filepath.Join(tmp, "bin")
	gobuild := exec.Command("go", "build", "-ldflags", "-X main.version=test-2", "-o", bin+"/", "../cmd/rackbootd")
	gobuild.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := gobuild.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	cmd := exec.Command("./build-deb.sh", testVersion)
	cmd.Env = append(os.Environ(), "BIN="+bin, "DIST="+filepath.Join(tmp, "dist"))
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("build-deb.sh: %w\n%s", err, stderrOf(err))
	}
	return strings.TrimSpace(string(out)), nil
}

func stderrOf(err error) []byte {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.Stderr
	}
	return nil
}

func dpkgDeb(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("dpkg-deb", args...).Output()
	if err != nil {
		t.Fatalf("dpkg-deb %v: %v\n%s", args, err, stderrOf(err))
	}
	return string(out)
}

func arch(t *testing.T) string {
	out, err := exec.Command("dpkg", "--print-architecture").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func TestPackage(t *testing.T) {
	deb := buildDeb(t)
	if want := "rackboot_1.2.3+4+gabcdef0+dirty_" + arch(t) + ".deb"; filepath.Base(deb) != want {
		t.Errorf("package file %s, want %s", filepath.Base(deb), want)
	}
	fields := dpkgDeb(t, "-f", deb, "Package", "Version", "Depends", "Architecture")
	want := "Package: rackboot\nVersion: 1.2.3+4+gabcdef0+dirty\nDepends: ipxe\nArchitecture: " + arch(t) + "\n"
	if fields != want {
		t.Errorf("control fields:\n%s\nwant:\n%s", fields, want)
	}
	if got := dpkgDeb(t, "-I", deb, "conffiles"); got != "/etc/rackboot/rackboot.toml\n" {
		t.Errorf("conffiles = %q", got)
	}
	checkContents(t, dpkgDeb(t, "-c", deb))
}

// checkContents checks the listing of dpkg-deb -c: the files, their modes,
// and root ownership of everything.
func checkContents(t *testing.T, listing string) {
	t.Helper()
	files := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(listing), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			t.Fatalf("odd listing line %q", line)
		}
		if f[1] != "root/root" {
			t.Errorf("%s is owned by %s", f[5], f[1])
		}
		if !strings.HasSuffix(f[5], "/") {
			files[f[5]] = f[0]
		}
	}
	want := map[string]string{
		"./usr/bin/rackbootd":                    "-rwxr-xr-x",
		"./lib/systemd/system/rackbootd.service": "-rw-r--r--",
		"./etc/rackboot/rackboot.toml":           "-rw-r--r--",
		"./usr/lib/sysusers.d/rackboot.conf":     "-rw-r--r--",
		"./usr/lib/tmpfiles.d/rackboot.conf":     "-rw-r--r--",
		"./usr/share/doc/rackboot/config.md":     "-rw-r--r--",
	}
	for path, mode := range want {
		if files[path] != mode {
			t.Errorf("%s: mode %q, want %q", path, files[path], mode)
		}
	}
	for path := range files {
		if _, ok := want[path]; !ok && !slices.Contains([]string{"./usr/share/doc/rackboot/README.md",
			"./usr/bin/rackbootctl", "./usr/bin/rackboot-agent",
			"./usr/lib/rackboot/agent/amd64/rackboot-agent", "./usr/lib/rackboot/agent/arm64/rackboot-agent"}, path) {
			t.Errorf("unexpected file %s", path)
		}
	}
}

// TestInstalledFiles unpacks the package and runs what it installed.
func TestInstalledFiles(t *testing.T) {
	deb := buildDeb(t)
	root := t.TempDir()
	dpkgDeb(t, "-x", deb, root)
	for installed, source := range map[string]string{
		"etc/rackboot/rackboot.toml":           "rackboot.toml",
		"lib/systemd/system/rackbootd.service": "../systemd/rackbootd.service",
		"usr/lib/sysusers.d/rackboot.conf":     "../systemd/rackboot-sysusers.conf",
		"usr/lib/tmpfiles.d/rackboot.conf":     "../systemd/rackboot-tmpfiles.conf",
	} {
		a, err1 := os.ReadFile(filepath.Join(root, installed))
		b, err2 := os.ReadFile(source)
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs from %s (%v, %v)", installed, source, err1, err2)
		}
	}
	bin := filepath.Join(root, "usr/bin/rackbootd")
	if out, err := exec.Command(bin, "version").Output(); err != nil || string(out) != "rackbootd test-2\n" {
		t.Errorf("installed rackbootd version: %q %v", out, err)
	}
	// The default configuration names profile files an operator provides.
	if _, err := os.Stat("/srv/rackboot/vmlinuz"); err == nil {
		t.Skip("/srv/rackboot/vmlinuz exists on this machine")
	}
	out, err := exec.Command(bin, "check-config", filepath.Join(root, "etc/rackboot/rackboot.toml")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), `profile.kernel "/srv/rackboot/vmlinuz" does not exist`) {
		t.Errorf("check-config of the default config without its files: %v\n%s", err, out)
	}
}

func TestVersionMapping(t *testing.T) {
	for version, want := range map[string]string{
		"v1.2.0":            "1.2.0",
		"fcac8c7":           "0.0+gitfcac8c7",
		"099b2c8":           "0.0+git099b2c8",
		"1.0":               "1.0",
		"snapshot":          "0.0+snapshot",
		"fcac8c7-dirty":     "0.0+gitfcac8c7+dirty",
		"v0.3.0-12-g1a2b3c": "0.3.0+12+g1a2b3c",
	} {
		out, err := exec.Command("./debian-version.sh", version).Output()
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("%s -> %q (%v), want %s", version, out, err, want)
		}
	}
}

func TestMissingBinary(t *testing.T) {
	cmd := exec.Command("./build-deb.sh", "1.0")
	cmd.Env = append(os.Environ(), "BIN="+t.TempDir(), "DIST="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "rackbootd is missing: run make build first") {
		t.Errorf("build-deb.sh without binaries: %v\n%s", err, out)
	}
}
