package api

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	v35 "github.com/coreos/ignition/v2/config/v3_5"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

const (
	testAdmin      = "admin-token-0123456789abcdef0123456789abcdef"
	testPullSecret = `{"auths":{"quay.io":{"auth":"c2VjcmV0LXB1bGwtc2VjcmV0LXZhbHVl"}}}`
	testHostID     = "52540000-aabb-0001-0000-000000000001"
	testHostID2    = "52540000-aabb-0001-0000-000000000002"
)

// syncBuffer is a log sink safe for concurrent handlers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// env is one API under test over real HTTP.
type env struct {
	t     testing.TB
	store engine.Store
	srv   *httptest.Server
	logs  *syncBuffer
	keys  *auth.KeyRing
	// seen collects every response body, to look for secrets.
	seen *syncBuffer
}

func newEnv(t testing.TB, store engine.Store) *env {
	t.Helper()
	return newEnvWith(t, store, testVMThresholds(t))
}

// testVMThresholds are upstream's minimums lowered for the test VMs.
func testVMThresholds(t testing.TB) func(*engine.Model, string) validation.Thresholds {
	t.Helper()
	testing := validation.DefaultThresholds()
	small, err := testing.Override(validation.Thresholds{Profile: "test-vms",
		Worker:     validation.Requirements{CPUCores: 1, MemoryMiB: 1024, DiskGB: 10},
		Master:     validation.Requirements{CPUCores: 1, MemoryMiB: 1024, DiskGB: 10},
		SingleNode: validation.Requirements{CPUCores: 1, MemoryMiB: 1024, DiskGB: 10}})
	if err != nil {
		t.Fatal(err)
	}
	return func(*engine.Model, string) validation.Thresholds { return small }
}

// newEnvWith is newEnv with the daemon's thresholds (nil: upstream's).
func newEnvWith(t testing.TB, store engine.Store, thresholds func(*engine.Model, string) validation.Thresholds) *env {
	t.Helper()
	return newEnvOpts(t, store, func(o *Options) { o.Thresholds = thresholds })
}

// newEnvOpts is newEnv with options changed by mod.
func newEnvOpts(t testing.TB, store engine.Store, mod func(*Options)) *env {
	t.Helper()
	keys := auth.NewKeyRing()
	if _, err := keys.Generate(); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	opts := Options{
		Store: store, AdminToken: testAdmin, Keys: keys, ServiceURL: srv.URL, BootURL: "http://10.55.0.1:8080",
		Log: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	mod(&opts)
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if strings.Contains(logs.String(), "undocumented success status") {
			t.Errorf("a handler answered a success status the route table does not document:\n%s", logs)
		}
	})
	return &env{t: t, store: store, srv: srv, logs: logs, keys: keys, seen: &syncBuffer{}}
}

func newMemEnv(t testing.TB) *env { return newEnv(t, enginetest.NewStore()) }

// resp is one answer.
type resp struct {
	code int
	body []byte
	hdr  http.Header
}

func (r resp) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// cred says how a request authenticates.
type cred struct {
	bearer string // Authorization: Bearer
	agent  string // X-Secret-Key, as the agent sends it
}

func adminCred() cred { return cred{bearer: testAdmin} }

// do sends a request with body (a string, []byte or a value to encode).
func (e *env) do(c cred, method, path string, body any) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	u := path
	if !strings.HasPrefix(path, "http") {
		u = e.srv.URL + BasePath + path
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	}
	if c.agent != "" || c.bearer == "" {
		// The upstream agent's headers: X-Secret-Key is always sent.
		req.Header.Set("Accept", "application/json")
		req.Header.Set("discovery_agent_version", "rackboot-agent/test")
		req.Header.Set("X-Request-Id", "req-"+method)
		req.Header.Set("X-Secret-Key", c.agent)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	_, _ = e.seen.Write(append(data, '\n'))
	return resp{code: res.StatusCode, body: data, hdr: res.Header}
}

// must sends a request and requires status code.
func (e *env) must(c cred, code int, method, path string, body any) resp {
	e.t.Helper()
	r := e.do(c, method, path, body)
	if r.code != code {
		e.t.Fatalf("%s %s: %d %s, want %d", method, path, r.code, r.body, code)
	}
	return r
}

// wantError requires an upstream error document with code.
func (e *env) wantError(r resp, code int, reasonHas string) {
	e.t.Helper()
	if r.code != code {
		e.t.Fatalf("status %d (%s), want %d", r.code, r.body, code)
	}
	var er Error
	r.decode(e.t, &er)
	if er.Kind != "Error" || er.Code != strconv.Itoa(code) || er.ID != int32(code) || !strings.Contains(er.Reason, reasonHas) {
		e.t.Errorf("error document %+v, want code %d and reason containing %q", er, code, reasonHas)
	}
}

// wantInfraError requires upstream's InfraError document with code, as
// register, get-instructions and post-step-reply answer 401 and 403.
func (e *env) wantInfraError(r resp, code int, messageHas string) {
	e.t.Helper()
	if r.code != code {
		e.t.Fatalf("status %d (%s), want %d", r.code, r.body, code)
	}
	var doc map[string]any
	r.decode(e.t, &doc)
	msg, _ := doc["message"].(string)
	if len(doc) != 2 || doc["code"] != float64(code) || !strings.Contains(msg, messageHas) {
		e.t.Errorf("InfraError document %s, want {code: %d, message containing %q}", r.body, code, messageHas)
	}
}

func (e *env) createCluster() models.Cluster {
	e.t.Helper()
	var c models.Cluster
	e.must(adminCred(), 201, "POST", "/clusters", map[string]any{
		"name": "rack1", "openshift_version": "4.17", "pull_secret": testPullSecret,
		"base_dns_domain": "example.com",
	}).decode(e.t, &c)
	return c
}

func (e *env) createInfraEnv(clusterID string) models.InfraEnv {
	e.t.Helper()
	body := map[string]any{"name": "ie1", "pull_secret": testPullSecret,
		"ssh_authorized_key":     "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGbL9VvJ3+u4pqVBFhLvhZhvKQnMrVHu+g6L5h9m3N8c test@rack",
		"additional_ntp_sources": "ntp.example.com"}
	if clusterID != "" {
		body["cluster_id"] = clusterID
	}
	var ie models.InfraEnv
	e.must(adminCred(), 201, "POST", "/infra-envs", body).decode(e.t, &ie)
	return ie
}

// agentTokenOf downloads the infra-env's discovery.ign, checks it and
// returns the agent config inside.
func (e *env) agentConfig(ieID string) discovery.AgentConfig {
	e.t.Helper()
	r := e.must(adminCred(), 200, "GET", "/infra-envs/"+ieID+"/downloads/files?file_name=discovery.ign", nil)
	cfg, rpt, err := v35.Parse(r.body)
	if err != nil {
		e.t.Fatalf("discovery.ign is not valid Ignition: %v\n%s", err, rpt)
	}
	for _, f := range cfg.Storage.Files {
		if f.Path != discovery.AgentConfigPath {
			continue
		}
		data, err := url.PathUnescape(strings.TrimPrefix(*f.Contents.Source, "data:,"))
		if err != nil {
			e.t.Fatal(err)
		}
		var ac discovery.AgentConfig
		if err := json.Unmarshal([]byte(data), &ac); err != nil {
			e.t.Fatal(err)
		}
		return ac
	}
	e.t.Fatalf("discovery.ign has no %s", discovery.AgentConfigPath)
	return discovery.AgentConfig{}
}

// inventory is the golden inventory of a QEMU BIOS VM.
func inventory(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("../../cmd/rackboot-agent/inventory/testdata/qemu-bios.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
