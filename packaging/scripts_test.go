package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stubTools puts systemd-sysusers, systemd-tmpfiles and systemctl stubs
// first in PATH; each appends its name and arguments to the returned log.
func stubTools(t *testing.T) (env []string, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls.log")
	for _, tool := range []string{"systemd-sysusers", "systemd-tmpfiles", "systemctl", "adduser"} {
		script := "#!/bin/sh\necho \"$(basename \"$0\") $*\" >>" + log + "\n"
		if err := os.WriteFile(filepath.Join(dir, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH")), log
}

func runScript(t *testing.T, env []string, script string, args ...string) string {
	t.Helper()
	cmd := exec.Command("sh", append([]string{script}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", script, args, err, out)
	}
	return string(out)
}

func TestScriptsParse(t *testing.T) {
	for _, s := range []string{"postinst", "prerm", "postrm", "build-deb.sh", "debian-version.sh"} {
		if out, err := exec.Command("sh", "-n", s).CombinedOutput(); err != nil {
			t.Errorf("sh -n %s: %v\n%s", s, err, out)
		}
	}
}

// TestPostinstFreshInstall: the user and state directory are made through
// systemd's tools, and the daemon is neither enabled nor started.
func TestPostinstFreshInstall(t *testing.T) {
	env, log := stubTools(t)
	out := runScript(t, env, "postinst", "configure", "")
	calls, _ := os.ReadFile(log)
	for _, want := range []string{
		"systemd-sysusers /usr/lib/sysusers.d/rackboot.conf\n",
		"systemd-tmpfiles --create /usr/lib/tmpfiles.d/rackboot.conf\n",
	} {
		if !strings.Contains(string(calls), want) {
			t.Errorf("postinst did not run %q; calls:\n%s", want, calls)
		}
	}
	for _, bad := range []string{"enable", "start", "restart"} {
		if strings.Contains(string(calls), "systemctl "+bad) {
			t.Errorf("a fresh install ran systemctl %s:\n%s", bad, calls)
		}
	}
	if !strings.Contains(out, "systemctl enable --now rackbootd") {
		t.Errorf("postinst does not tell the operator what to do next: %q", out)
	}
}

func TestPostinstOtherActions(t *testing.T) {
	env, log := stubTools(t)
	for _, args := range [][]string{{"abort-upgrade", "1.0"}, {"abort-remove"}} {
		runScript(t, env, "postinst", args...)
	}
	runScript(t, env, "prerm", "upgrade", "1.1")
	runScript(t, env, "postrm", "upgrade", "1.1")
	if calls, _ := os.ReadFile(log); len(calls) > 0 {
		t.Errorf("maintainer scripts acted on an upgrade or abort:\n%s", calls)
	}
}
