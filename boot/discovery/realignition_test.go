package discovery

import (
	"crypto/sha512"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/testbed/image"
)

// TestRealIgnitionFetchesTheAgent applies a discovery config that carries
// rackboot-agent as a remote file with the real Ignition binary (stages
// fetch-offline, fetch, files) on a scratch root laid out like CoreOS's,
// where /usr/local is a symlink to /var/usrlocal: Ignition fetches the
// agent from a server on loopback, checks its sha512 and writes it 0755
// under /var/usrlocal/bin, with the agent unit enabled. Bytes that are not
// the ones hashed make the files stage fail. It builds Ignition when the
// cache lacks it (minutes), so it runs with RACKBOOT_E2E=1, as root.
func TestRealIgnitionFetchesTheAgent(t *testing.T) {
	if os.Getenv("RACKBOOT_E2E") != "1" || os.Geteuid() != 0 {
		t.Skip("builds Ignition and needs root: set RACKBOOT_E2E=1 and run as root")
	}
	ign, err := image.BuildIgnitionDefault(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	agent := []byte("#!/bin/sh\necho rackboot-agent\n")
	serve := agent
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/agent/amd64/rackboot-agent" {
			http.NotFound(w, r)
			return
		}
		w.Write(serve)
	}))
	defer ts.Close()
	sum := sha512.Sum512(agent)
	in := minimalInput()
	in.ServiceURL = ts.URL
	in.Agent = &RemoteAgent{URL: ts.URL + "/agent/amd64/rackboot-agent", SHA512: hex.EncodeToString(sum[:])}
	cfg, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}

	root := coreosRoot(t)
	if out, err := runIgnition(t, ign, root, cfg); err != nil {
		t.Fatalf("ignition: %v\n%s", err, out)
	}
	got := filepath.Join(root, "var/usrlocal/bin/rackboot-agent")
	st, err := os.Stat(got)
	raw, _ := os.ReadFile(got)
	if err != nil || st.Mode().Perm() != 0o755 || string(raw) != string(agent) {
		t.Errorf("/usr/local/bin/rackboot-agent: %v mode %v %q", err, st, raw)
	}
	preset, _ := os.ReadFile(filepath.Join(root, "etc/systemd/system-preset/20-ignition.preset"))
	if !strings.Contains(string(preset), "enable "+AgentUnit) {
		t.Errorf("%s not enabled; preset:\n%s", AgentUnit, preset)
	}

	serve = []byte("#!/bin/sh\necho something else\n")
	out, err := runIgnition(t, ign, coreosRoot(t), cfg)
	if err == nil || !strings.Contains(out, "hash") {
		t.Errorf("ignition applied an agent whose sha512 differs: %v\n%s", err, out)
	}
}

// coreosRoot is a scratch root with CoreOS's /usr/local -> ../var/usrlocal.
func coreosRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"usr", "var/usrlocal/bin", "etc"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../var/usrlocal", filepath.Join(root, "usr/local")); err != nil {
		t.Fatal(err)
	}
	return root
}

// runIgnition runs Ignition with cfg on root and returns its output.
func runIgnition(t *testing.T, ign, root string, cfg []byte) (string, error) {
	t.Helper()
	run := t.TempDir()
	cfgPath := filepath.Join(run, "config.ign")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	return image.RunIgnition(t.Context(), ign, root, cfgPath, run)
}
