package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cavaliergopher/cpio"
)

const apiBase = "/api/assisted-install/v2"

// engineConfig is configText with a second profile listing
// 52:54:00:00:00:05 and the given [engine] table.
func (d *testDaemon) engineConfig(engine string) string {
	return d.configText("console=ttyS0", "vmlinuz") + `
[[profile]]
name = "rescue"
cmdline = "rescue=1"
kernel = "vmlinuz"
initrd = "initrd.img"
ignition = "discovery.ign"
macs = ["52:54:00:00:00:05"]

[[dhcp.reservation]]
mac = "52:54:00:00:00:06"
infra_env = "lab"

[engine]
` + engine
}

// adminToken reads the token file under the test daemon's data_dir.
func (d *testDaemon) adminToken() string {
	d.t.Helper()
	b, err := os.ReadFile(filepath.Join(d.dir, "state", "admin-token"))
	if err != nil {
		d.t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// call makes an API request from loopback with a header (such as
// "Authorization: Bearer x") and returns the status and body.
func (d *testDaemon) call(method, path, header, body string) (int, string) {
	d.t.Helper()
	req, err := http.NewRequest(method, "http://"+d.httpAddr+apiBase+path, strings.NewReader(body))
	if err != nil {
		d.t.Fatal(err)
	}
	if name, val, ok := strings.Cut(header, ": "); ok {
		req.Header.Set(name, val)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		d.t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// createInfraEnv creates an infra-env as the admin and returns its id.
func (d *testDaemon) createInfraEnv(name string) string {
	d.t.Helper()
	code, body := d.call("POST", "/infra-envs", "Authorization: Bearer "+d.adminToken(),
		`{"name":"`+name+`","pull_secret":"{\"auths\":{}}"}`)
	var ie struct{ ID string }
	if code != http.StatusCreated || json.Unmarshal([]byte(body), &ie) != nil || ie.ID == "" {
		d.t.Fatalf("create infra-env: %d %s", code, body)
	}
	return ie.ID
}

// ignitionFiles returns the files of the config.ign that a served initrd
// carries after the profile's initrd base (padded to 4 bytes): path →
// contents.
func ignitionFiles(t *testing.T, served []byte, base string) map[string]string {
	t.Helper()
	return decodeIgnition(t, configIgn(t, served, base))
}

// configIgn returns the config.ign that a served initrd carries after the
// profile's initrd base (padded to 4 bytes).
func configIgn(t *testing.T, served []byte, base string) []byte {
	t.Helper()
	if !bytes.HasPrefix(served, []byte(base)) {
		t.Fatalf("the initrd does not start with the profile's initrd")
	}
	rest := served[len(base)+(4-len(base)%4)%4:] // padded to 4 bytes
	zr, err := gzip.NewReader(bytes.NewReader(rest))
	if err != nil {
		t.Fatalf("no gzip cpio after the profile's initrd: %v", err)
	}
	zr.Multistream(false)
	cr := cpio.NewReader(zr)
	for {
		h, err := cr.Next()
		if errors.Is(err, io.EOF) {
			t.Fatal("no config.ign in the initrd")
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimPrefix(h.Name, "/") == "config.ign" {
			raw, err := io.ReadAll(cr)
			if err != nil {
				t.Fatal(err)
			}
			return raw
		}
	}
}

func decodeIgnition(t *testing.T, raw []byte) map[string]string {
	t.Helper()
	var cfg struct {
		Storage struct {
			Files []struct {
				Path     string
				Contents struct{ Source string }
			}
		}
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf("config.ign: %v\n%s", err, raw)
	}
	files := map[string]string{}
	for _, f := range cfg.Storage.Files {
		if strings.HasPrefix(f.Contents.Source, "http://") { // fetched by Ignition: the URL
			files[f.Path] = f.Contents.Source
			continue
		}
		data, ok := strings.CutPrefix(f.Contents.Source, "data:,")
		if !ok {
			t.Fatalf("%s: source %q is not a plain data URL", f.Path, f.Contents.Source)
		}
		s, err := url.PathUnescape(data)
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		files[f.Path] = s
	}
	return files
}

type agentConf struct {
	ServiceURL string `json:"service_url"`
	InfraEnvID string `json:"infra_env_id"`
	Token      string `json:"token"`
}

// agentConfOf returns the agent.conf in the config.ign of mac's initrd
// (ok false when there is none).
func agentConfOf(t *testing.T, files map[string]string) (agentConf, bool) {
	t.Helper()
	raw, ok := files["/etc/rackboot/agent.conf"]
	if !ok {
		return agentConf{}, false
	}
	var ac agentConf
	if err := json.Unmarshal([]byte(raw), &ac); err != nil {
		t.Fatalf("agent.conf: %v\n%s", err, raw)
	}
	return ac, true
}

// TestEngineAPIAndDefaultInfraEnv: the admin token file appears (0600), the
// API answers the admin token from loopback, an infra-env created through
// it becomes the default infra-env on reload, so a stranger's initrd
// carries its agent.conf and a reserved host's its hostname too, a MAC
// reserved for another infra-env gets that one's, while a MAC that a
// profile lists keeps that profile; after kill -9 the
// infra-env, the admin token and the signing keys are still there.
func TestEngineAPIAndDefaultInfraEnv(t *testing.T) {
	d := startDaemon(t)
	d.waitNote("READY=1")
	fi, err := os.Stat(filepath.Join(d.dir, "state", "admin-token"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("admin-token mode %v, want 0600", fi.Mode().Perm())
	}
	token := d.adminToken()
	if code, body := d.call("GET", "/clusters", "Authorization: Bearer "+token, ""); code != http.StatusOK || strings.TrimSpace(body) != "[]" {
		t.Errorf("GET clusters as admin: %d %s", code, body)
	}
	if code, body := d.call("GET", "/clusters", "", ""); code != http.StatusUnauthorized {
		t.Errorf("GET clusters without a token: %d %s", code, body)
	}
	id := d.createInfraEnv("rack")
	lab := d.createInfraEnv("lab")

	d.writeConfig(d.engineConfig("default_infra_env = \"rack\"\ndefault_profile = \"discovery\"\n"))
	if status := d.reload(); strings.Contains(status, "reload failed") {
		t.Fatalf("reload: %s", status)
	}
	stranger := ignitionFiles(t, []byte(d.get("/boot/52-54-00-00-00-99/initrd")), "initrd")
	ac, ok := agentConfOf(t, stranger)
	if !ok || ac.InfraEnvID != id || ac.ServiceURL != "http://"+d.httpAddr || ac.Token == "" {
		t.Fatalf("stranger's agent.conf: %+v (found %v); want infra-env %s at http://%s", ac, ok, id, d.httpAddr)
	}
	if _, ok := stranger["/etc/hostname"]; ok {
		t.Error("a stranger got a hostname")
	}
	reserved := ignitionFiles(t, []byte(d.get("/boot/"+testMAC+"/initrd")), "initrd")
	if got := strings.TrimSpace(reserved["/etc/hostname"]); got != "node-1" {
		t.Errorf("reserved host's /etc/hostname = %q, want node-1", got)
	}
	if ac, ok := agentConfOf(t, reserved); !ok || ac.InfraEnvID != id {
		t.Errorf("reserved host's agent.conf: %+v %v", ac, ok)
	}
	if ac, ok := agentConfOf(t, ignitionFiles(t, []byte(d.get("/boot/52-54-00-00-00-06/initrd")), "initrd")); !ok || ac.InfraEnvID != lab {
		t.Errorf("MAC reserved for infra-env lab: agent.conf %+v %v, want infra-env %s", ac, ok, lab)
	}
	if _, ok := agentConfOf(t, ignitionFiles(t, []byte(d.get("/boot/52-54-00-00-00-05/initrd")), "initrd")); ok {
		t.Error("a MAC listed by profile \"rescue\" got the default infra-env's agent.conf")
	}
	if script := d.get("/boot/52-54-00-00-00-05/script.ipxe"); !strings.Contains(script, "rescue=1") {
		t.Errorf("profile-listed MAC's script:\n%s", script)
	}

	d.signal(syscall.SIGKILL)
	select {
	case err := <-d.exited:
		d.exited <- err
	case <-time.After(waitLimit):
		t.Fatal("rackbootd did not die")
	}
	d.start(nil)
	d.waitNote("READY=1")
	if d.adminToken() != token {
		t.Error("the admin token changed across a restart")
	}
	code, body := d.call("GET", "/infra-envs/"+id, "Authorization: Bearer "+token, "")
	if code != http.StatusOK || !strings.Contains(body, `"name":"rack"`) {
		t.Errorf("infra-env after kill -9: %d %s", code, body)
	}
	// The agent token signed before the kill still verifies: the key ring
	// is in the replicated state.
	if code, body := d.call("GET", "/infra-envs/"+id, "X-Secret-Key: "+ac.Token, ""); code != http.StatusOK {
		t.Errorf("agent token from before the kill: %d %s", code, body)
	}
	d.stop()
}

// TestStopEndsWatchStreams: a host watch stream (long-lived) open at
// SIGTERM ends at once; the stop does not wait for its deadline and cut
// anything off.
func TestStopEndsWatchStreams(t *testing.T) {
	d := startDaemon(t)
	d.waitNote("READY=1")
	id := d.createInfraEnv("rack")
	// A host, so that the stream has an event to send (its headers go out
	// with the first event).
	code, body := d.call("POST", "/infra-envs/"+id+"/hosts", "Authorization: Bearer "+d.adminToken(),
		`{"host_id":"5b2f0a3e-4c1d-4e8f-9a6b-7c8d9e0f1a2b"}`)
	if code != http.StatusCreated {
		t.Fatalf("register a host: %d %s", code, body)
	}
	req, err := http.NewRequest("GET", "http://"+d.httpAddr+apiBase+"/infra-envs/"+id+"/hosts?watch=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+d.adminToken())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch: %s", resp.Status)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, `"ADDED"`) {
		t.Fatalf("first watch event: %q %v", line, err)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, resp.Body)
		ended <- err
	}()
	d.stop()
	select {
	case <-ended:
	case <-time.After(waitLimit):
		t.Fatal("the watch stream outlived the daemon")
	}
	if log := d.stderr.String(); strings.Contains(log, "cut off") {
		t.Errorf("the stop waited for its deadline:\n%s", log)
	}
}
