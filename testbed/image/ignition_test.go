package image

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// applyConfig is what the discovery image is given, in small: files (data
// URLs, modes, overwrite), a directory, a link, a user with an SSH key and
// an enabled unit.
const applyConfig = `{
  "ignition": {"version": "3.4.0"},
  "passwd": {"users": [{"name": "core", "sshAuthorizedKeys": ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f ops@rack"]}]},
  "storage": {
    "files": [
      {"path": "/etc/rackboot/agent.conf", "mode": 384, "overwrite": true,
       "contents": {"source": "data:,%7B%22service_url%22%3A%22http%3A%2F%2F10.0.0.1%3A8090%22%7D"}},
      {"path": "/etc/motd", "mode": 420, "overwrite": true, "contents": {"source": "data:;base64,aGVsbG8K"}}
    ],
    "directories": [{"path": "/var/lib/rackboot", "mode": 448}],
    "links": [{"path": "/etc/localtime", "target": "/usr/share/zoneinfo/UTC"}]
  },
  "systemd": {"units": [{"name": "rackboot-agent.service", "enabled": true,
    "contents": "[Service]\nExecStart=/usr/local/bin/rackboot-agent\n[Install]\nWantedBy=multi-user.target\n"}]}
}`

// TestIgnitionAppliesConfig runs the Ignition binary the discovery image
// carries, with the stages and flags its /init uses, on a scratch root
// holding the image's account files and tools: what it writes is what a
// discovery host gets. It builds Ignition (cgo, minutes the first time),
// so it runs with RACKBOOT_E2E=1, and needs root (Ignition chroots to look
// users up).
func TestIgnitionAppliesConfig(t *testing.T) {
	if os.Getenv("RACKBOOT_E2E") != "1" || os.Geteuid() != 0 {
		t.Skip("builds Ignition and needs root: set RACKBOOT_E2E=1 and run as root")
	}
	ign, err := BuildIgnitionDefault(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	root, bin := shimRoot(t)
	// Ignition writes a user's SSH keys as that user: the scratch root
	// must be reachable by others, as / is.
	for _, d := range []string{filepath.Dir(root), root} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(t.TempDir(), "config.ign")
	if err := os.WriteFile(cfg, []byte(applyConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := RunIgnition(t.Context(), ign, root, cfg, t.TempDir(), "PATH="+bin+":"+os.Getenv("PATH")); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkApplied(t, root)
}

func checkApplied(t *testing.T, root string) {
	t.Helper()
	files := []struct {
		path string
		mode os.FileMode
		body string
	}{
		{"etc/rackboot/agent.conf", 0o600, `{"service_url":"http://10.0.0.1:8090"}`},
		{"etc/motd", 0o644, "hello\n"},
		{"etc/systemd/system/rackboot-agent.service", 0o644, "[Service]\nExecStart=/usr/local/bin/rackboot-agent\n[Install]\nWantedBy=multi-user.target\n"},
		{"home/core/.ssh/authorized_keys.d/ignition", 0o600, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f ops@rack\n"},
	}
	for _, f := range files {
		st, err := os.Stat(filepath.Join(root, f.path))
		b, rerr := os.ReadFile(filepath.Join(root, f.path))
		if err != nil || rerr != nil || st.Mode().Perm() != f.mode || string(b) != f.body {
			t.Errorf("/%s: %v %v mode %v body %q; want mode %v body %q", f.path, err, rerr, st, b, f.mode, f.body)
		}
	}
	if st, err := os.Stat(filepath.Join(root, "var/lib/rackboot")); err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		t.Errorf("/var/lib/rackboot: %v %v", st, err)
	}
	if target, err := os.Readlink(filepath.Join(root, "etc/localtime")); err != nil || target != "/usr/share/zoneinfo/UTC" {
		t.Errorf("/etc/localtime -> %q, %v", target, err)
	}
	preset, err := os.ReadFile(filepath.Join(root, "etc/systemd/system-preset/20-ignition.preset"))
	if err != nil || !strings.Contains(string(preset), "enable rackboot-agent.service") {
		t.Errorf("unit preset: %q %v", preset, err)
	}
	passwd := readEtc(t, root, "passwd")
	if !strings.Contains(passwd, "core:x:1000:1000::/home/core:/bin/sh") {
		t.Errorf("/etc/passwd:\n%s", passwd)
	}
	st, err := os.Stat(filepath.Join(root, "home/core/.ssh/authorized_keys.d/ignition"))
	if sys, ok := st.Sys().(*syscall.Stat_t); err != nil || !ok || sys.Uid != 1000 || sys.Gid != 1000 {
		t.Errorf("core's authorized keys are not core's: %v %+v", err, st.Sys())
	}
}
