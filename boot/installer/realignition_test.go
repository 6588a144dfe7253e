package installer

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/testbed/image"
)

// TestRealIgnitionAppliesHostConfig applies a HostIgnition output with the
// Ignition binary the testbed images carry (stages fetch-offline, fetch,
// files, as the images run them) on a scratch root, then runs the
// first-boot script Ignition wrote against a progress endpoint on loopback:
// what an installed host gets and does on its first boot. It builds
// Ignition when the cache lacks it (minutes), so it runs with
// RACKBOOT_E2E=1, and needs root (Ignition chroots and chowns).
func TestRealIgnitionAppliesHostConfig(t *testing.T) {
	if os.Getenv("RACKBOOT_E2E") != "1" || os.Geteuid() != 0 {
		t.Skip("builds Ignition and needs root: set RACKBOOT_E2E=1 and run as root")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	ign, err := image.BuildIgnitionDefault(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	srv := &progressServer{status: http.StatusOK}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	// A role config without a remote merge source (no network beyond
	// loopback), then the host part and an override.
	role := []byte(`{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/role","mode":420,"contents":{"source":"data:,master"}}]}}`)
	p := testParams()
	p.FirstBoot.ProgressURL = ts.URL + "/api/assisted-install/v2/infra-envs/ie/hosts/h/progress"
	p.IgnitionOverride = `{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/motd","mode":420,"contents":{"source":"data:,hello%0A"}}]}}`
	cfg, err := HostIgnition(role, p)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(t.TempDir(), "config.ign")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := image.RunIgnition(t.Context(), ign, root, cfgPath, t.TempDir()); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}

	for path, want := range map[string]struct {
		mode os.FileMode
		text string
	}{
		"etc/role":                         {0o644, "master"},
		"etc/hostname":                     {0o644, p.Hostname + "\n"},
		"etc/motd":                         {0o644, "hello\n"},
		"etc/rackboot/firstboot.token":     {0o600, testToken},
		"usr/local/bin/rackboot-firstboot": {0o755, "#!/bin/sh\n"},
		"etc/NetworkManager/system-connections/eth0.nmconnection": {0o600, "[connection]\nid=eth0\n"},
		"etc/systemd/system/" + FirstBootUnit:                     {0o644, "[Unit]\n"},
	} {
		st, err := os.Stat(filepath.Join(root, path))
		if err != nil {
			t.Errorf("Ignition did not write /%s: %v", path, err)
			continue
		}
		raw, _ := os.ReadFile(filepath.Join(root, path))
		if st.Mode().Perm() != want.mode || !strings.HasPrefix(string(raw), want.text) {
			t.Errorf("/%s: mode %o %q; want mode %o starting %q", path, st.Mode().Perm(), raw, want.mode, want.text)
		}
	}
	preset, _ := os.ReadFile(filepath.Join(root, "etc/systemd/system-preset/20-ignition.preset"))
	if !strings.Contains(string(preset), "enable "+FirstBootUnit) {
		t.Errorf("%s not enabled; preset:\n%s", FirstBootUnit, preset)
	}

	h := installedHost{
		script:  filepath.Join(root, FirstBootScript),
		token:   filepath.Join(root, FirstBootTokenPath),
		stamp:   filepath.Join(root, FirstBootStamp),
		console: filepath.Join(root, "console"),
	}
	console, err := h.run(t, "/bin/sh")
	if err != nil || !strings.Contains(console, FirstBootDoneMarker) {
		t.Fatalf("first boot: %v, console %q", err, console)
	}
	if got := srv.got(); len(got) != 1 || got[0].secret != testToken || got[0].body["current_stage"] != "Done" {
		t.Errorf("reports %+v, want one Done with the token", got)
	}
}
