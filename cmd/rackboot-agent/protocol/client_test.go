package protocol_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/internal/fakesvc"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/protocol"
	"github.com/rackboot/rackboot/engine/models"
)

const (
	infraEnv = "7c3f1d2e-1111-4222-8333-444455556666"
	hostID   = "0d8e5b2a-aaaa-bbbb-cccc-ddddeeeeffff" // not RFC 4122, as upstream's may be
	token    = "eyJhbGciOiJFUzI1NiJ9.secret-agent-token.sig"
)

func newClient(t *testing.T, url, tok string) *protocol.Client {
	t.Helper()
	c, err := protocol.New(protocol.Config{URL: url, InfraEnvID: infraEnv, Token: tok, AgentVersion: "rackboot-agent-test"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func serve(t *testing.T) (*fakesvc.Service, *httptest.Server) {
	svc := fakesvc.New(infraEnv, token)
	srv := httptest.NewServer(svc.Handler())
	t.Cleanup(srv.Close)
	return svc, srv
}

func TestRegisterPollReplyWithUpstreamHeaders(t *testing.T) {
	svc, srv := serve(t)
	svc.Push(models.Steps{Instructions: []*models.Step{{StepID: "inventory-1a2b3c4d", StepType: models.StepTypeInventory, Args: []string{hostID}}},
		NextInstructionSeconds: 5, PostStepAction: "continue"})
	c := newClient(t, srv.URL+"/api/assisted-install/", token)
	ctx := context.Background()
	reg, err := c.Register(ctx, hostID)
	if err != nil {
		t.Fatal(err)
	}
	if reg.ID != hostID || reg.NextStepRunnerCommand == nil || len(reg.NextStepRunnerCommand.Args) != 1 {
		t.Fatalf("registration answer: %+v", reg)
	}
	now := time.Unix(1790000000, 0)
	steps, err := c.NextSteps(ctx, hostID, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps.Instructions) != 1 || steps.Instructions[0].StepType != models.StepTypeInventory || steps.NextInstructionSeconds != 5 {
		t.Fatalf("steps: %+v", steps)
	}
	if err := c.PostReply(ctx, hostID, &models.StepReply{StepID: "inventory-1a2b3c4d", StepType: models.StepTypeInventory, Output: "{}"}); err != nil {
		t.Fatal(err)
	}
	reqs := svc.Requests()
	wantPaths := []string{
		"POST /api/assisted-install/v2/infra-envs/" + infraEnv + "/hosts",
		"GET /api/assisted-install/v2/infra-envs/" + infraEnv + "/hosts/" + hostID + "/instructions",
		"POST /api/assisted-install/v2/infra-envs/" + infraEnv + "/hosts/" + hostID + "/instructions",
	}
	if len(reqs) != len(wantPaths) {
		t.Fatalf("%d requests, want %d", len(reqs), len(wantPaths))
	}
	ids := map[string]bool{}
	for i, r := range reqs {
		if got := r.Method + " " + r.Path; got != wantPaths[i] {
			t.Errorf("request %d: %s, want %s", i, got, wantPaths[i])
		}
		if r.Header.Get("Accept") != "application/json" || r.Header.Get("X-Secret-Key") != token {
			t.Errorf("request %d: Accept %q, X-Secret-Key set %t", i, r.Header.Get("Accept"), r.Header.Get("X-Secret-Key") == token)
		}
		// Go sends the header with its canonical name, as upstream's client does.
		if v := r.Header["Discovery_agent_version"]; len(v) != 1 || v[0] != "rackboot-agent-test" {
			t.Errorf("request %d: Discovery_agent_version %q", i, v)
		}
		id := r.Header.Get("X-Request-Id")
		if !protocol.ValidID(id) || ids[id] {
			t.Errorf("request %d: X-Request-Id %q missing or repeated", i, id)
		}
		ids[id] = true
	}
	if reqs[1].RawQuery != "timestamp=1790000000" {
		t.Errorf("poll query %q", reqs[1].RawQuery)
	}
	if string(reqs[0].Body) != `{"discovery_agent_version":"rackboot-agent-test","host_id":"`+hostID+`"}` {
		t.Errorf("register body %s", reqs[0].Body)
	}
	if string(reqs[2].Body) != `{"output":"{}","step_id":"inventory-1a2b3c4d","step_type":"inventory"}` {
		t.Errorf("reply body %s (exit_code must be omitted when 0)", reqs[2].Body)
	}
	if got := svc.Replies(); len(got) != 1 || got[0].Output != "{}" {
		t.Errorf("replies %+v", got)
	}
}

func TestPermanentStatusesAndRedaction(t *testing.T) {
	for _, code := range []int{401, 403, 404, 409} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(code)
			w.Write([]byte(`{"reason":"key ` + r.Header.Get("X-Secret-Key") + ` refused"}`))
		}))
		_, err := newClient(t, srv.URL, token).Register(context.Background(), hostID)
		srv.Close()
		if !protocol.IsPermanent(err) {
			t.Errorf("%d: %v is not permanent", code, err)
		}
		var se *protocol.StatusError
		if !errors.As(err, &se) || se.Code != code {
			t.Errorf("%d: %v", code, err)
		}
		if strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), "[redacted]") {
			t.Errorf("%d: error text %q must show the reason without the token", code, err)
		}
	}
}

// An InfraError (upstream's 401 and 403 body for the agent's calls) is
// permanent and its message is the reason, without the token.
func TestInfraErrorMessageIsTheReason(t *testing.T) {
	for _, code := range []int{401, 403} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(code)
			w.Write([]byte(`{"code":` + strconv.Itoa(code) + `,"message":"token ` + r.Header.Get("X-Secret-Key") + ` is not of this infra-env"}`))
		}))
		_, err := newClient(t, srv.URL, token).Register(context.Background(), hostID)
		srv.Close()
		if !protocol.IsPermanent(err) || !strings.Contains(err.Error(), "token [redacted] is not of this infra-env") ||
			strings.Contains(err.Error(), token) {
			t.Errorf("%d: %v", code, err)
		}
	}
}

// Every call of the agent and its install step (register, instructions,
// step reply, progress, the host's Ignition) reads the InfraError of a 401
// or 403 as a permanent refusal with its message: the agent stops.
func TestInfraErrorStopsEveryCall(t *testing.T) {
	calls := map[string]func(c *protocol.Client) error{
		"register": func(c *protocol.Client) error { _, err := c.Register(context.Background(), hostID); return err },
		"instructions": func(c *protocol.Client) error {
			_, err := c.NextSteps(context.Background(), hostID, time.Now())
			return err
		},
		"step reply": func(c *protocol.Client) error {
			return c.PostReply(context.Background(), hostID, &models.StepReply{StepID: "x-1", StepType: "x"})
		},
		"progress": func(c *protocol.Client) error {
			return c.PutProgress(context.Background(), hostID, models.HostProgress{CurrentStage: models.HostStageInstalling})
		},
		"host ignition": func(c *protocol.Client) error {
			_, err := c.HostIgnition(context.Background(), protocol.APIPath+"/infra-envs/"+infraEnv+"/hosts/"+hostID+"/downloads/ignition")
			return err
		},
	}
	for _, code := range []int{401, 403} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(code)
			w.Write([]byte(`{"code":` + strconv.Itoa(code) + `,"message":"infra-env token refused"}`))
		}))
		for name, call := range calls {
			err := call(newClient(t, srv.URL, token))
			var se *protocol.StatusError
			if !protocol.IsPermanent(err) || !errors.As(err, &se) || se.Code != code || se.Reason != "infra-env token refused" {
				t.Errorf("%s answered %d: %v, want a permanent refusal with the message", name, code, err)
			}
		}
		srv.Close()
	}
}

func TestExactStatusCodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		code int
		call func(c *protocol.Client) error
	}{
		{"register answered 200", 200, func(c *protocol.Client) error { _, err := c.Register(context.Background(), hostID); return err }},
		{"register answered 503", 503, func(c *protocol.Client) error { _, err := c.Register(context.Background(), hostID); return err }},
		{"poll answered 204", 204, func(c *protocol.Client) error {
			_, err := c.NextSteps(context.Background(), hostID, time.Now())
			return err
		}},
		{"reply answered 200", 200, func(c *protocol.Client) error {
			return c.PostReply(context.Background(), hostID, &models.StepReply{StepID: "x-1", StepType: "x"})
		}},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tc.code)
			if tc.code != 204 {
				w.Write([]byte(`{}`))
			}
		}))
		err := tc.call(newClient(t, srv.URL, token))
		srv.Close()
		if !errors.Is(err, protocol.ErrStatus) || protocol.IsPermanent(err) {
			t.Errorf("%s: %v, want a transient ErrStatus", tc.name, err)
		}
	}
}

func TestUnreachableIsTransport(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens here now
	_, err = newClient(t, "http://"+addr, token).Register(context.Background(), hostID)
	if !errors.Is(err, protocol.ErrTransport) || protocol.IsPermanent(err) {
		t.Fatalf("%v, want ErrTransport", err)
	}
}

func TestOnDateSeesServiceClock(t *testing.T) {
	svc, srv := serve(t)
	_ = svc
	var got time.Time
	c, err := protocol.New(protocol.Config{URL: srv.URL, InfraEnvID: infraEnv, Token: token,
		OnDate: func(sent, received, date time.Time) { got = date }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Register(context.Background(), hostID); err != nil {
		t.Fatal(err)
	}
	if got.IsZero() || got.Sub(time.Now()).Abs() > time.Minute {
		t.Fatalf("Date seen %v", got)
	}
}

func TestBadConfig(t *testing.T) {
	for _, cfg := range []protocol.Config{
		{URL: "ftp://x", InfraEnvID: infraEnv},
		{URL: "http://", InfraEnvID: infraEnv},
		{URL: "http://u:" + token + "@h", InfraEnvID: infraEnv, Token: token},
		{URL: "http://h?api_key=" + token, InfraEnvID: infraEnv, Token: token},
		{URL: "http://h", InfraEnvID: "../../clusters"},
		{URL: "http://h", InfraEnvID: infraEnv, Token: "a\r\nX-Evil: 1"},
	} {
		_, err := protocol.New(cfg)
		if !errors.Is(err, protocol.ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", cfg.InfraEnvID, err)
		} else if strings.Contains(err.Error(), token) {
			t.Errorf("error text leaks the token: %v", err)
		}
	}
	c := newClient(t, "http://127.0.0.1:1", token)
	if _, err := c.Register(context.Background(), "../../x"); !errors.Is(err, protocol.ErrConfig) {
		t.Errorf("bad host id: %v", err)
	}
}
