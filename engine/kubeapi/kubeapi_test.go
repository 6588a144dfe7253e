package kubeapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/kubeapi"
)

const admin = "admin-token"

// waitLimit bounds waits on the watch stream so that a broken server
// fails the test; nothing is asserted about speed.
const waitLimit = 30 * time.Second

type fixture struct {
	t     *testing.T
	srv   *httptest.Server
	store *enginetest.Store
	keys  *auth.KeyRing
}

func newFixture(t *testing.T, window int) *fixture {
	t.Helper()
	store := enginetest.NewStore()
	keys := auth.NewKeyRing()
	if _, err := keys.Generate(); err != nil {
		t.Fatal(err)
	}
	sealer, err := engine.NewSealer(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	h, err := kubeapi.New(kubeapi.Options{Store: store, AdminToken: admin, Keys: keys, Sealer: sealer, WatchWindow: window})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go h.Run(ctx)
	mux := http.NewServeMux()
	h.Mount(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &fixture{t: t, srv: srv, store: store, keys: keys}
}

// do sends a request with the admin token and returns status and body.
func (f *fixture) do(method, path, ctype, body string) (int, string) {
	f.t.Helper()
	return f.doAs(admin, method, path, ctype, body)
}

func (f *fixture) doAs(token, method, path, ctype, body string) (int, string) {
	f.t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (f *fixture) index() uint64 {
	var i uint64
	f.store.Read(func(m *engine.Model) { i = m.Index() })
	return i
}

const agentsPath = "/apis/agent-install.openshift.io/v1beta1/namespaces/ns/agents"

func (f *fixture) setup() {
	f.t.Helper()
	if c, b := f.do("POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"ns"}}`); c != 201 {
		f.t.Fatalf("create namespace: %d %s", c, b)
	}
}

func (f *fixture) createAgent(name string) {
	f.t.Helper()
	body := `{"apiVersion":"agent-install.openshift.io/v1beta1","kind":"Agent","metadata":{"name":"` + name + `"},"spec":{"approved":false,"role":""}}`
	if c, b := f.do("POST", agentsPath, "application/json", body); c != 201 {
		f.t.Fatalf("create agent: %d %s", c, b)
	}
}

// An agent token opens nothing here (403); no token or a wrong one is
// 401; both are Status objects.
func TestAccess(t *testing.T) {
	f := newFixture(t, 0)
	tok, err := f.keys.Sign(auth.Claims{InfraEnvID: "ie", Subject: "agent", ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if c, b := f.doAs(tok, "GET", "/apis", "", ""); c != http.StatusForbidden || !strings.Contains(b, `"reason":"Forbidden"`) {
		t.Errorf("agent token: %d %s, want 403 Forbidden", c, b)
	}
	if c, b := f.doAs("wrong", "GET", agentsPath, "", ""); c != http.StatusUnauthorized || !strings.Contains(b, `"kind":"Status"`) {
		t.Errorf("wrong token: %d %s, want 401 Status", c, b)
	}
	if c, _ := f.do("GET", "/apis", "", ""); c != http.StatusOK {
		t.Errorf("admin token: %d", c)
	}
}

// Refused writes change nothing: not a single command is appended.
func TestRefusedWritesWriteNothing(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	f.createAgent("a1")
	before := f.index()
	var rv string
	_, body := f.do("GET", agentsPath+"/a1", "", "")
	var obj struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	_ = json.Unmarshal([]byte(body), &obj)
	rv = obj.Metadata.ResourceVersion
	for name, tc := range map[string]struct {
		method, path, ctype, body string
		code                      int
		reason                    string
	}{
		"exists":      {"POST", agentsPath, "application/json", `{"metadata":{"name":"a1"}}`, 409, "AlreadyExists"},
		"bad name":    {"POST", agentsPath, "application/json", `{"metadata":{"name":"A_1"}}`, 422, "Invalid"},
		"bad label":   {"POST", agentsPath, "application/json", `{"metadata":{"name":"a2","labels":{"a b":"c"}}}`, 422, "Invalid"},
		"wrong kind":  {"POST", agentsPath, "application/json", `{"kind":"InfraEnv","metadata":{"name":"a2"}}`, 400, "BadRequest"},
		"not json":    {"POST", agentsPath, "application/json", `{"metadata":`, 400, "BadRequest"},
		"no ns":       {"POST", "/apis/agent-install.openshift.io/v1beta1/namespaces/nope/agents", "application/json", `{"metadata":{"name":"a2"}}`, 404, "NotFound"},
		"stale rv":    {"PUT", agentsPath + "/a1", "application/json", `{"metadata":{"name":"a1","resourceVersion":"1"},"spec":{"approved":true,"role":""}}`, 409, "Conflict"},
		"missing":     {"PATCH", agentsPath + "/zz", "application/merge-patch+json", `{"spec":{}}`, 404, "NotFound"},
		"strategic":   {"PATCH", agentsPath + "/a1", "application/strategic-merge-patch+json", `{"spec":{}}`, 415, "UnsupportedMediaType"},
		"bad secret":  {"POST", "/api/v1/namespaces/ns/secrets", "application/json", `{"metadata":{"name":"s"},"type":"kubernetes.io/dockerconfigjson","data":{}}`, 422, "Invalid"},
		"not base64":  {"POST", "/api/v1/namespaces/ns/secrets", "application/json", `{"metadata":{"name":"s"},"data":{"k":"!!"}}`, 400, "BadRequest"}, // decoded as kube-apiserver decodes a Secret
		"too big":     {"POST", agentsPath, "application/json", `{"metadata":{"name":"big"},"spec":{"approved":true,"role":"","hostname":"` + strings.Repeat("x", engine.MaxObjectBytes) + `"}}`, 413, "RequestEntityTooLarge"},
		"delete gone": {"DELETE", agentsPath + "/zz", "", "", 404, "NotFound"},
		"delete stale": {"DELETE", agentsPath + "/a1", "application/json",
			`{"preconditions":{"resourceVersion":"` + rv + `0"}}`, 409, "Conflict"},
	} {
		code, body := f.do(tc.method, tc.path, tc.ctype, tc.body)
		if code != tc.code || !strings.Contains(body, `"reason":"`+tc.reason+`"`) {
			t.Errorf("%s: %d %s, want %d %s", name, code, body, tc.code, tc.reason)
		}
	}
	if after := f.index(); after != before {
		t.Errorf("refused requests moved the log from %d to %d", before, after)
	}
}

// Secret data is sealed in the model and served in the clear.
func TestSecretSealed(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	if c, b := f.do("POST", "/api/v1/namespaces/ns/secrets", "application/json",
		`{"metadata":{"name":"ps"},"stringData":{"k":"top-secret"}}`); c != 201 || !strings.Contains(b, `"k":"dG9wLXNlY3JldA=="`) {
		t.Fatalf("create: %d %s", c, b)
	}
	f.store.Read(func(m *engine.Model) {
		o, _ := m.Object(engine.ObjectRef{Kind: "Secret", Namespace: "ns", Name: "ps"}.Key())
		if strings.Contains(string(o.Body), "dG9wLXNlY3JldA") || strings.Contains(string(o.Body), "top-secret") {
			t.Errorf("the model holds the secret in the clear: %s", o.Body)
		}
	})
}

// watchStream reads a watch's events.
type watchStream struct {
	t      *testing.T
	events chan map[string]any
}

func (f *fixture) watch(query string) *watchStream {
	f.t.Helper()
	return f.watchAt(agentsPath, query)
}

// watchAt watches the collection at path.
func (f *fixture) watchAt(path, query string) *watchStream {
	f.t.Helper()
	req, _ := http.NewRequest("GET", f.srv.URL+path+"?watch=true&"+query, nil)
	req.Header.Set("Authorization", "Bearer "+admin)
	ctx, cancel := context.WithCancel(context.Background())
	f.t.Cleanup(cancel)
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		f.t.Fatal(err)
	}
	w := &watchStream{t: f.t, events: make(chan map[string]any, 64)}
	go func() {
		defer resp.Body.Close()
		defer close(w.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var e map[string]any
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				w.events <- e
			}
		}
	}()
	return w
}

func (w *watchStream) next() (typ, name string, obj map[string]any) {
	w.t.Helper()
	select {
	case e, ok := <-w.events:
		if !ok {
			w.t.Fatal("the watch ended")
		}
		obj, _ = e["object"].(map[string]any)
		md, _ := obj["metadata"].(map[string]any)
		name, _ = md["name"].(string)
		return e["type"].(string), name, obj
	case <-time.After(waitLimit):
		w.t.Fatal("no watch event")
	}
	return "", "", nil
}

// A watch from a list's resourceVersion sees exactly the later changes; a
// resourceVersion older than the cache's window is 410 Gone.
func TestWatchResumeAndGone(t *testing.T) {
	f := newFixture(t, 3)
	f.setup()
	f.createAgent("a1")
	_, list := f.do("GET", agentsPath, "", "")
	var l struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(list), &l); err != nil || l.Metadata.ResourceVersion == "" {
		t.Fatalf("list: %v %s", err, list)
	}
	w := f.watch("resourceVersion=" + l.Metadata.ResourceVersion)
	f.createAgent("a2")
	if c, b := f.do("PATCH", agentsPath+"/a1", "application/merge-patch+json", `{"spec":{"approved":true}}`); c != 200 {
		t.Fatalf("patch: %d %s", c, b)
	}
	if c, b := f.do("DELETE", agentsPath+"/a2", "", ""); c != 200 {
		t.Fatalf("delete: %d %s", c, b)
	}
	for _, want := range [][2]string{{"ADDED", "a2"}, {"MODIFIED", "a1"}, {"DELETED", "a2"}} {
		if typ, name, _ := w.next(); typ != want[0] || name != want[1] {
			t.Errorf("event %s %s, want %s %s", typ, name, want[0], want[1])
		}
	}
	// Push the list's revision out of the window of 3 (kept up to 6).
	for _, n := range []string{"b1", "b2", "b3", "b4", "b5", "b6", "b7"} {
		f.createAgent(n)
	}
	late := f.watch("resourceVersion=" + l.Metadata.ResourceVersion)
	typ, _, obj := late.next()
	if typ != "ERROR" || obj["code"] != float64(http.StatusGone) || obj["reason"] != "Expired" {
		t.Errorf("a watch from an expired resourceVersion: %s %v, want ERROR 410 Expired", typ, obj)
	}
	// Without a resourceVersion, a watch lists first.
	all := f.watch("labelSelector=")
	seen := map[string]bool{}
	for range 8 {
		typ, name, _ := all.next()
		if typ != "ADDED" {
			t.Errorf("initial event %s %s, want ADDED", typ, name)
		}
		seen[name] = true
	}
	if !seen["a1"] || !seen["b7"] || seen["a2"] {
		t.Errorf("initial events named %v", seen)
	}
}

// An object whose labels stop matching the watch's selector leaves it as
// DELETED; one that starts matching enters as ADDED.
func TestWatchSelector(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	f.createAgent("a1")
	w := f.watch("labelSelector=role%3Dmaster")
	f.do("PATCH", agentsPath+"/a1", "application/merge-patch+json", `{"metadata":{"labels":{"role":"master"}}}`)
	if typ, name, _ := w.next(); typ != "ADDED" || name != "a1" {
		t.Errorf("labelled: %s %s, want ADDED a1", typ, name)
	}
	f.do("PATCH", agentsPath+"/a1", "application/json-patch+json", `[{"op":"remove","path":"/metadata/labels/role"}]`)
	if typ, name, _ := w.next(); typ != "DELETED" || name != "a1" {
		t.Errorf("unlabelled: %s %s, want DELETED a1", typ, name)
	}
}
