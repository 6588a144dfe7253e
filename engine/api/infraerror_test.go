package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/agent"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/protocol"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/models"
)

// routeOf returns the route of rt's table that serves method and path (a
// path relative to BasePath), as the server's mux picks it.
func routeOf(t *testing.T, e *env, method, path string) route {
	t.Helper()
	s, err := newServer(Options{Store: e.store, AdminToken: "x", Keys: e.keys, ServiceURL: "http://h"})
	if err != nil {
		t.Fatal(err)
	}
	mux, byPattern := http.NewServeMux(), map[string]route{}
	for _, rt := range s.routes() {
		p := rt.method + " " + rt.path
		byPattern[p] = rt
		mux.Handle(p, http.NotFoundHandler())
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	_, pattern := mux.Handler(httptest.NewRequest(method, path, nil))
	rt, ok := byPattern[pattern]
	if !ok {
		t.Fatalf("no route serves %s %s", method, path)
	}
	return rt
}

// Every route an agent credential may call (upstream's agent and
// installer call them) answers 401 and 403 with upstream's InfraError
// {code, message}, on which upstream's agent stops; the user API keeps
// the generic error document. The table names each agent route; a new one
// without a row fails.
func TestAgentRoutesAnswerInfraError(t *testing.T) {
	e := newMemEnv(t)
	c := e.createCluster()
	ie, other := e.createInfraEnv(c.ID), e.createInfraEnv("")
	tok, otherTok := e.agentConfig(ie.ID).Token, e.agentConfig(other.ID).Token
	e.must(cred{agent: tok}, 201, "POST", "/infra-envs/"+ie.ID+"/hosts", models.HostCreateParams{HostID: testHostID})
	ieP := "/infra-envs/" + ie.ID
	host := ieP + "/hosts/" + testHostID
	reply := models.StepReply{StepType: models.StepTypeInventory, StepID: "inventory-1", Output: "{}"}
	progress := models.HostProgress{CurrentStage: models.HostStageInstalling}
	rows := []struct {
		name, method, path string
		body               any
	}{
		{"get infra-env", "GET", ieP, nil},
		{"infra-env files", "GET", ieP + "/downloads/files?file_name=discovery.ign", nil},
		{"list hosts", "GET", ieP + "/hosts", nil},
		{"register", "POST", ieP + "/hosts", models.HostCreateParams{HostID: testHostID}},
		{"get host", "GET", host, nil},
		{"next steps", "GET", host + "/instructions", nil},
		{"step reply (inventory)", "POST", host + "/instructions", reply},
		{"install progress", "PUT", host + "/progress", progress},
		{"host ignition", "GET", host + "/downloads/ignition", nil},
	}
	covered := map[string]bool{}
	for _, row := range rows {
		rt := routeOf(t, e, row.method, row.path)
		if !rt.infraErr() {
			t.Errorf("%s: route %s %s does not answer InfraError", row.name, rt.method, rt.path)
		}
		covered[rt.method+" "+rt.path] = true
		t.Run(row.name, func(t *testing.T) {
			e.wantInfraError(e.do(cred{}, row.method, row.path, row.body), 401, "")
			e.wantInfraError(e.do(cred{agent: "not-a-jwt"}, row.method, row.path, row.body), 401, "")
			e.wantInfraError(e.do(cred{agent: otherTok}, row.method, row.path, row.body), 403, "")
		})
	}
	s, err := newServer(Options{Store: e.store, AdminToken: "x", Keys: e.keys, ServiceURL: "http://h"})
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range s.routes() {
		if rt.infraErr() && !covered[rt.method+" "+rt.path] {
			t.Errorf("agent route %s %s has no row", rt.method, rt.path)
		}
	}
	// The user API keeps the generic document, for users and agents alike.
	e.wantError(e.do(cred{}, "GET", "/clusters", nil), 401, "")
	e.wantError(e.do(cred{agent: tok}, "GET", "/clusters", nil), 403, "")
	e.wantError(e.do(cred{agent: tok}, "PATCH", host, map[string]any{"approved": true}), 403, "")
}

// countingTransport counts the requests per "METHOD last-path-element" and
// calls after once a request got its answer.
type countingTransport struct {
	mu    sync.Mutex
	n     map[string]int
	after func(r *http.Request, code int)
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(r)
	c.mu.Lock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[r.Method+" "+path.Base(r.URL.Path)]++
	c.mu.Unlock()
	if err == nil && c.after != nil {
		c.after(r, res.StatusCode)
	}
	return res, err
}

func (c *countingTransport) count(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

type noSteps struct{}

func (noSteps) Run(_ context.Context, st *models.Step) *models.StepReply {
	return &models.StepReply{StepID: st.StepID, StepType: st.StepType, Output: "{}"}
}

// rackboot-agent stops for good on the InfraError of register (a token of
// another infra-env: 403) and of the instructions (its signing key retired
// once it registered: 401), after one request each: no retry loop.
func TestAgentStopsOnInfraError(t *testing.T) {
	e := newKeyEnv(t, enginetest.NewStore())
	ie, other := e.createInfraEnv(""), e.createInfraEnv("")
	run := func(tok string, tr *countingTransport) error {
		c, err := protocol.New(protocol.Config{URL: e.srv.URL, InfraEnvID: ie.ID, Token: tok, AgentVersion: "v1",
			HTTP: &http.Client{Transport: tr}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		a := &agent.Agent{Service: c, Steps: noSteps{}, HostID: testHostID, Log: slog.New(slog.DiscardHandler)}
		return a.Run(ctx)
	}

	tr := &countingTransport{}
	err := run(e.agentConfig(other.ID).Token, tr)
	var se *protocol.StatusError
	if !errors.Is(err, agent.ErrRefused) || !errors.As(err, &se) || se.Code != 403 || se.Reason == "" {
		t.Fatalf("register with another infra-env's token: %v, want ErrRefused with the 403's message", err)
	}
	if n := tr.count("POST hosts"); n != 1 {
		t.Errorf("%d registrations, want 1", n)
	}

	before := e.signingKeys().ActiveKID
	tr = &countingTransport{after: func(r *http.Request, code int) {
		if r.Method == "POST" && code == 201 {
			e.must(adminCred(), 200, "POST", "/signing-keys/actions/rotate", nil)
			e.must(adminCred(), 204, "DELETE", "/signing-keys/"+before, nil)
		}
	}}
	err = run(e.agentConfig(ie.ID).Token, tr)
	if !errors.Is(err, agent.ErrRefused) || !errors.As(err, &se) || se.Code != 401 || !strings.Contains(se.Reason, "retired") {
		t.Fatalf("instructions with a retired key: %v, want ErrRefused with the 401's message", err)
	}
	if n := tr.count("GET instructions"); n != 1 {
		t.Errorf("%d instruction requests, want 1", n)
	}
}
