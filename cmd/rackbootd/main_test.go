package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// rackbootdBin is rackbootd built once for the tests that run it as a user would.
var rackbootdBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rackbootd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rackbootdBin = filepath.Join(dir, "rackbootd")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=test-1", "-o", rackbootdBin, ".")
	build.Stderr = os.Stderr
	code := 1
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building rackbootd:", err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// runBinary runs rackbootd with args in dir and returns stdout, stderr and
// the exit code.
func runBinary(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(rackbootdBin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &exit):
		return stdout.String(), stderr.String(), exit.ExitCode()
	}
	t.Fatalf("running rackbootd: %v", err)
	return "", "", -1
}

func TestVersion(t *testing.T) {
	out, _, code := runBinary(t, ".", "version")
	if code != 0 || out != "rackbootd test-1\n" {
		t.Errorf("version: exit %d, %q", code, out)
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"check-config"}, {"check-config", "a", "b"}, {"--bogus"}, {"serve"}} {
		_, stderr, code := runBinary(t, ".", args...)
		if code != 2 || !strings.Contains(stderr, "usage:") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

func TestCheckConfigGood(t *testing.T) {
	stdout, stderr, code := runBinary(t, "internal/config", "check-config", "testdata/good/rackboot.toml")
	if code != 0 || stdout != "ok\n" || stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestCheckConfigBad runs check-config on every bad file of the config
// package: exit 1 and exactly the golden messages.
func TestCheckConfigBad(t *testing.T) {
	files, _ := filepath.Glob("internal/config/testdata/bad/*.toml")
	if len(files) == 0 {
		t.Fatal("no bad files")
	}
	for _, f := range files {
		rel, _ := filepath.Rel("internal/config", f)
		want, err := os.ReadFile(strings.TrimSuffix(f, ".toml") + ".golden")
		if err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runBinary(t, "internal/config", "check-config", rel)
		if code != 1 || stdout != "" || stderr != string(want) {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant:\n%s", rel, code, stdout, stderr, want)
		}
	}
}

// TestCheckConfigInvalidIgnition: the file is fine, the Ignition it names
// is not; check-config points at the ignition key.
func TestCheckConfigInvalidIgnition(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "vmlinuz", "k")
	writeFile(t, dir, "initrd.img", "i")
	writeFile(t, dir, "good.ign", `{"ignition":{"version":"3.4.0"}}`)
	writeFile(t, dir, "bad.ign", `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"relative/path"}]}}`)
	writeFile(t, dir, "r.toml", `[server]
advertise = "127.0.0.1"
[tftp]
enabled = false
[[profile]]
name = "a"
kernel = "vmlinuz"
initrd = "initrd.img"
ignition = "good.ign"
[[profile]]
name = "b"
kernel = "vmlinuz"
initrd = "initrd.img"
ignition = "bad.ign"
macs = ["52:54:00:00:00:01"]
`)
	stdout, stderr, code := runBinary(t, dir, "check-config", "r.toml")
	if code != 1 || stdout != "" || !strings.HasPrefix(stderr, `r.toml:14:12: invalid boot profile "b": ignition file `) ||
		strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
