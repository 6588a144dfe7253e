package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/engine/models"
)

const (
	fakeCluster  = "cccccccc-0000-4000-8000-000000000001"
	fakeInfraEnv = "11111111-0000-4000-8000-000000000001"
	fakeToken    = "fake-admin-token"
	kubeconfig   = "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    client-key-data: c2VjcmV0LWtleQ==\n"
)

// fakeInstallAPI answers the installation routes of the v2 API the way
// rackbootd does, from a script: GET of the cluster walks through
// states, one per request (the last one repeats).
type fakeInstallAPI struct {
	t        *testing.T
	mu       sync.Mutex
	states   []*client.Cluster
	gets     int
	install  int // status of actions/install
	reason   string
	requests []string // "METHOD path?query"
}

func (f *fakeInstallAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+fakeToken {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	req := r.Method + " " + strings.TrimPrefix(r.URL.Path, client.BasePath)
	if r.URL.RawQuery != "" {
		req += "?" + r.URL.RawQuery
	}
	f.requests = append(f.requests, req)
	cur := f.states[min(f.gets, len(f.states)-1)]
	reply := func(code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	switch req {
	case "GET /clusters":
		reply(200, []*client.Cluster{cur})
	case "GET /clusters/" + fakeCluster:
		f.gets++
		reply(200, cur)
	case "POST /clusters/" + fakeCluster + "/actions/install":
		if f.install == http.StatusConflict {
			reply(409, map[string]any{"code": "409", "kind": "Error", "reason": f.reason})
			return
		}
		reply(202, &client.Cluster{ID: fakeCluster, Name: "prod", Status: "preparing-for-installation"})
	case "POST /clusters/" + fakeCluster + "/actions/cancel":
		reply(202, &client.Cluster{ID: fakeCluster, Status: "cancelled"})
	case "POST /clusters/" + fakeCluster + "/actions/reset":
		reply(202, &client.Cluster{ID: fakeCluster, Status: "insufficient"})
	case "POST /clusters/" + fakeCluster + "/actions/allow-add-workers":
		reply(202, &client.Cluster{ID: fakeCluster, Status: "adding-hosts"})
	case "GET /clusters/" + fakeCluster + "/downloads/credentials?file_name=kubeconfig":
		w.Write([]byte(kubeconfig))
	case "GET /clusters/" + fakeCluster + "/downloads/files?file_name=master.ign":
		w.Write([]byte(`{"ignition":{"version":"3.4.0"}}`))
	case "GET /infra-envs/" + fakeInfraEnv + "/hosts/" + hostID:
		reply(200, &client.Host{Host: models.Host{ID: hostID, InfraEnvID: fakeInfraEnv, Status: "known"}})
	case "POST /infra-envs/" + fakeInfraEnv + "/hosts/" + hostID + "/actions/install":
		reply(202, &client.Host{Host: models.Host{ID: hostID, InfraEnvID: fakeInfraEnv, Status: "installing"}})
	default:
		reply(404, map[string]any{"code": "404", "reason": "no route " + req})
	}
}

// runFake runs rackbootctl against f and returns the exit code and output.
func runFake(t *testing.T, f *fakeInstallAPI, args ...string) result {
	t.Helper()
	var out bytes.Buffer
	code, stderr := runFakeTo(t, f, &out, args...)
	return result{code, out.String(), stderr}
}

// fakeNow is the clock of the CLI runs against a fake.
var fakeNow = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// runFakeTo runs rackbootctl against f with standard output stdout.
func runFakeTo(t *testing.T, f *fakeInstallAPI, stdout io.Writer, args ...string) (int, string) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	var errb bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Env{Stdout: stdout, Stderr: &errb, Version: "test",
		Now: func() time.Time { return fakeNow },
		Getenv: func(k string) string {
			return map[string]string{"RACKBOOT_URL": srv.URL, "RACKBOOT_TOKEN": fakeToken}[k]
		}})
	return code, errb.String()
}

func (f *fakeInstallAPI) sent(req string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.requests {
		if r == req {
			return true
		}
	}
	return false
}

func notReady() *client.Cluster {
	return &client.Cluster{ID: fakeCluster, Name: "prod", Status: "insufficient",
		StatusInfo: "Cluster is not ready for install",
		ValidationsInfo: `{"hosts-data":[{"id":"sufficient-masters-count","status":"failure","message":"The cluster must have exactly 3 dedicated control plane nodes."}],` +
			`"configuration":[{"id":"pull-secret-set","status":"success","message":"The pull secret is set."}]}`,
		Hosts: []*client.Host{{Host: models.Host{ID: hostID, RequestedHostname: "master-0", Status: "insufficient",
			ValidationsInfo: `{"hardware":[{"id":"has-min-memory","status":"failure","message":"The host is not eligible: 1.00 GiB of RAM, 16.00 GiB required"}]}`}}}}
}

// install of a cluster that is not ready, from a server whose 409 does not
// list validations: exit 1, the server's reason and every failing
// validation of the cluster and its hosts, the passing ones not.
func TestInstallRefusedListsFailingValidations(t *testing.T) {
	f := &fakeInstallAPI{t: t, states: []*client.Cluster{notReady()}, install: http.StatusConflict,
		reason: "Cluster prod is insufficient: 1 validation fails"}
	res := runFake(t, f, "install", "prod")
	if res.code != cli.ExitError || res.stdout != "" {
		t.Fatalf("install: exit %d, stdout %q, want 1 and nothing", res.code, res.stdout)
	}
	want := "error: cluster prod (" + fakeCluster + ") is insufficient, not ready to install (HTTP 409); failing validations:\n" +
		"OBJECT          ID                         STATUS    MESSAGE\n" +
		"cluster         sufficient-masters-count   failure   The cluster must have exactly 3 dedicated control plane nodes.\n" +
		"host/master-0   has-min-memory             failure   The host is not eligible: 1.00 GiB of RAM, 16.00 GiB required\n"
	if res.stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", res.stderr, want)
	}
	if !f.sent("POST /clusters/" + fakeCluster + "/actions/install") {
		t.Errorf("install was not asked for: %q", f.requests)
	}
}

func TestInstallCancelResetAllowAddWorkers(t *testing.T) {
	f := &fakeInstallAPI{t: t, states: []*client.Cluster{{ID: fakeCluster, Name: "prod", Status: "ready"}}}
	for _, c := range []struct {
		args []string
		out  string
		req  string
	}{
		{[]string{"install", fakeCluster}, "cluster/" + fakeCluster + " preparing-for-installation\n", "POST /clusters/" + fakeCluster + "/actions/install"},
		{[]string{"cancel", "prod"}, "cluster/" + fakeCluster + " cancelled\n", "POST /clusters/" + fakeCluster + "/actions/cancel"},
		{[]string{"reset", "prod"}, "cluster/" + fakeCluster + " insufficient\n", "POST /clusters/" + fakeCluster + "/actions/reset"},
		{[]string{"allow-add-workers", "prod"}, "cluster/" + fakeCluster + " adding-hosts\n", "POST /clusters/" + fakeCluster + "/actions/allow-add-workers"},
		{[]string{"install", "host", hostID, "--infra-env", fakeInfraEnv}, "host/" + hostID + " installing\n",
			"POST /infra-envs/" + fakeInfraEnv + "/hosts/" + hostID + "/actions/install"},
	} {
		res := runFake(t, f, c.args...)
		if res.code != 0 || res.stdout != c.out {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", c.args, res.code, res.stdout, res.stderr, c.out)
		}
		if !f.sent(c.req) {
			t.Errorf("%v did not send %s", c.args, c.req)
		}
	}
}

func TestInstallUsageErrors(t *testing.T) {
	f := &fakeInstallAPI{t: t, states: []*client.Cluster{{ID: fakeCluster, Name: "prod", Status: "ready"}}}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"install"}, cli.ExitUsage, "install takes one cluster ID or name"},
		{[]string{"install", "a", "b"}, cli.ExitUsage, "install takes one cluster ID or name"},
		{[]string{"cancel", "nosuch"}, cli.ExitError, `no cluster has the ID or name "nosuch"`},
		{[]string{"install", "prod", "-w", "--interval", "1ms"}, cli.ExitUsage, "--interval must be at least 100ms"},
		{[]string{"download", "credentials", "ssh-key", "prod"}, cli.ExitUsage, `unknown name "ssh-key" (want kubeadmin-password, kubeconfig)`},
		{[]string{"download", "files", "master.ign"}, cli.ExitUsage, "download files needs --cluster"},
		{[]string{"download", "files"}, cli.ExitUsage, "which one? (bootstrap.ign, install-config.yaml, master.ign, metadata.json, worker.ign)"},
		{[]string{"create", "cluster", "--name", "x", "--version", "4.16", "--sno", "--api-vip", "10.0.0.5"}, cli.ExitUsage, "a single-node cluster has no API or ingress VIPs"},
		{[]string{"create", "cluster", "--name", "x", "--version", "4.16", "--sno", "--control-plane-count", "3"}, cli.ExitUsage, "--sno has one control-plane host, not 3"},
		{[]string{"get", "clusters", "-o", "progress"}, cli.ExitUsage, "-o progress shows hosts only"},
	} {
		res := runFake(t, f, c.args...)
		if res.code != c.code || !strings.Contains(res.stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, res.code, res.stderr, c.code, c.msg)
		}
	}
	if f.sent("POST /clusters/" + fakeCluster + "/actions/install") {
		t.Error("a usage error still asked the server to install")
	}
}

// download credentials and files: to a 0600 file with -o, to a pipe, and
// a kubeconfig never to standard output when that is a terminal.
func TestDownloadCredentialsAndFiles(t *testing.T) {
	f := &fakeInstallAPI{t: t, states: []*client.Cluster{{ID: fakeCluster, Name: "prod", Status: "installed"}}}
	dir := t.TempDir()
	out := filepath.Join(dir, "kubeconfig")
	if res := runFake(t, f, "download", "credentials", "kubeconfig", "--cluster", "prod", "-o", out); res.code != 0 || res.stdout != "" {
		t.Fatalf("download credentials: %+v", res)
	}
	b, err := os.ReadFile(out)
	if err != nil || string(b) != kubeconfig {
		t.Errorf("kubeconfig file: %q, %v", b, err)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("kubeconfig mode: %v %v, want 0600", st.Mode(), err)
	}
	if res := runFake(t, f, "download", "files", "master.ign", fakeCluster); res.code != 0 || res.stdout != `{"ignition":{"version":"3.4.0"}}` {
		t.Errorf("download files master.ign: %+v", res)
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		t.Logf("no terminal to check the refusal on: %v", err)
		return
	}
	defer tty.Close()
	srv := httptest.NewServer(f)
	defer srv.Close()
	var errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"--url", srv.URL, "--token", fakeToken, "download", "credentials", "kubeconfig", "prod"},
		cli.Env{Stdout: tty, Stderr: &errb})
	if code != cli.ExitUsage || !strings.Contains(errb.String(), "kubeconfig holds secrets") {
		t.Errorf("kubeconfig to a terminal: exit %d, %s", code, errb.String())
	}
}
