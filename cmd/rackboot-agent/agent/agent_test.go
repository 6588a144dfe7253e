package agent_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/agent"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/internal/fakesvc"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/protocol"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/steps"
	"github.com/rackboot/rackboot/engine/models"
)

const (
	infraEnv = "7c3f1d2e-1111-4222-8333-444455556666"
	hostID   = "0d8e5b2a-aaaa-bbbb-cccc-ddddeeeeffff"
	token    = "eyJhbGciOiJFUzI1NiJ9.very-secret-agent-token.sig"
)

// fakeClock never waits: Sleep records the duration, advances Now, and
// calls onSleep (which may cancel the run).
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	sleeps  []time.Duration
	onSleep func(n int, d time.Duration)
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.sleeps = append(c.sleeps, d)
	n, hook := len(c.sleeps), c.onSleep
	c.mu.Unlock()
	if hook != nil {
		hook(n, d)
	}
	return ctx.Err()
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

type harness struct {
	svc   *fakesvc.Service
	srv   *httptest.Server
	clock *fakeClock
	logs  *syncBuffer
	agent *agent.Agent
}

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

func fixedInventory(ctx context.Context) (*models.Inventory, error) {
	return &models.Inventory{Hostname: "node-a", BmcAddress: "0.0.0.0", BmcV6address: "::/0"}, nil
}

func newHarness(t *testing.T, url string) *harness {
	t.Helper()
	h := &harness{clock: &fakeClock{now: time.Unix(1790000000, 0)}, logs: &syncBuffer{}}
	if url == "" {
		h.svc = fakesvc.New(infraEnv, token)
		h.srv = httptest.NewServer(h.svc.Handler())
		t.Cleanup(h.srv.Close)
		url = h.srv.URL
	}
	client, err := protocol.New(protocol.Config{URL: url, InfraEnvID: infraEnv, Token: token, AgentVersion: "v-test"})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h.agent = &agent.Agent{
		Service: client, HostID: hostID, Log: log, Clock: h.clock,
		Steps:   steps.NewRunner(steps.Deps{Inventory: fixedInventory, Log: log}),
		Backoff: agent.Backoff{Initial: time.Second, Max: 8 * time.Second},
	}
	t.Cleanup(func() {
		if strings.Contains(h.logs.String(), token) || strings.Contains(h.logs.String(), "very-secret") {
			t.Errorf("the token reached the log:\n%s", h.logs.String())
		}
	})
	return h
}

// stopAfter cancels the run at the n-th sleep.
func (h *harness) stopAfter(n int) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	h.clock.onSleep = func(k int, _ time.Duration) {
		if k >= n {
			cancel()
		}
	}
	return ctx
}

func inventoryStep(id string) *models.Step {
	return &models.Step{StepID: id, StepType: models.StepTypeInventory, Args: []string{hostID}}
}

func TestInstructionsLoopExitReregisters(t *testing.T) {
	h := newHarness(t, "")
	h.svc.Push(
		models.Steps{Instructions: []*models.Step{inventoryStep("inventory-00000001"),
			{StepID: "tang-connectivity-check-00000002", StepType: models.StepTypeTangConnectivityCheck, Args: []string{"{}"}}},
			NextInstructionSeconds: 7, PostStepAction: models.PostStepActionContinue},
		models.Steps{Instructions: []*models.Step{}, PostStepAction: models.PostStepActionExit},
	)
	ctx := h.stopAfter(2) // the 7 s wait, then the default-interval wait after re-registering
	if err := h.agent.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	var seq []string
	for _, r := range h.svc.Requests() {
		seq = append(seq, r.Method+" "+r.Path[strings.LastIndex(r.Path, "/"):])
	}
	want := []string{"POST /hosts", "GET /instructions", "POST /instructions", "POST /instructions",
		"GET /instructions", "POST /hosts", "GET /instructions"}
	if strings.Join(seq, ",") != strings.Join(want, ",") {
		t.Fatalf("requests\n%v\nwant\n%v", seq, want)
	}
	if got := h.clock.Sleeps(); len(got) != 2 || got[0] != 7*time.Second || got[1] != 60*time.Second {
		t.Errorf("waits %v, want next_instruction_seconds (7s) then the 60 s default", got)
	}
	replies := map[string]models.StepReply{}
	for _, r := range h.svc.Replies() {
		replies[r.StepID] = r
	}
	inv := replies["inventory-00000001"]
	if inv.ExitCode != 0 || !strings.Contains(inv.Output, `"hostname":"node-a"`) {
		t.Errorf("inventory reply %+v", inv)
	}
	tang := replies["tang-connectivity-check-00000002"]
	if tang.ExitCode == 0 || !strings.Contains(tang.Error, "not supported") {
		t.Errorf("unsupported step reply %+v", tang)
	}
}

func TestRefusedStopsForGood(t *testing.T) {
	for _, code := range []int{401, 403, 404, 409} {
		h := newHarness(t, "")
		h.svc.SetRegisterStatus(code)
		err := h.agent.Run(context.Background())
		if !errors.Is(err, agent.ErrRefused) {
			t.Fatalf("%d: Run returned %v, want ErrRefused", code, err)
		}
		if n := len(h.svc.Requests()); n != 1 {
			t.Errorf("%d: %d requests, want 1 (no retry)", code, n)
		}
	}
}

func TestWrongTokenStops(t *testing.T) {
	h := newHarness(t, "")
	h.svc.Token = "another-token"
	err := h.agent.Run(context.Background())
	if !errors.Is(err, agent.ErrRefused) || strings.Contains(err.Error(), token) {
		t.Fatalf("Run: %v", err)
	}
}

func TestUnavailableRetriesWithBackoff(t *testing.T) {
	h := newHarness(t, "")
	h.agent.Backoff.Rand = func() float64 { return 0.999 }
	h.svc.SetRegisterStatus(503, 503, 500, 502, 503, 503)
	h.svc.SetStepsStatus(503)
	ctx := h.stopAfter(8) // six register retries, one poll retry, one poll interval
	if err := h.agent.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	got := h.clock.Sleeps()
	// Backoff doubles from 1 s and is capped at 8 s; jitter picks from [d/2, d).
	want := []time.Duration{1, 2, 4, 8, 8, 8, 1}
	for i, w := range want {
		d := w * time.Second
		if got[i] <= d/2 || got[i] > d {
			t.Errorf("wait %d: %v, want just under %v", i, got[i], d)
		}
	}
	if got[7] != 60*time.Second {
		t.Errorf("after a successful poll the agent waits the interval, got %v", got[7])
	}
}

func TestUnreachableServiceKeepsPolling(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	h := newHarness(t, "http://"+addr)
	h.agent.Backoff.Rand = func() float64 { return 0 }
	ctx := h.stopAfter(10)
	if err := h.agent.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	got := h.clock.Sleeps()
	if len(got) != 10 || got[0] != 500*time.Millisecond || got[9] != 4*time.Second {
		t.Fatalf("waits %v: want 0.5 s doubling to the 4 s cap (half of 8 s with zero jitter)", got)
	}
	if c := strings.Count(h.logs.String(), "level=WARN"); c != 1 {
		t.Errorf("%d warnings for an unreachable service, want 1 then quieter retries", c)
	}
}

func TestDuplicateOutputNotResentWithinAnHour(t *testing.T) {
	h := newHarness(t, "")
	h.agent.Interval = 20 * time.Minute
	for i := range 5 {
		h.svc.Push(models.Steps{Instructions: []*models.Step{inventoryStep("inventory-0000000" + string(rune('a'+i)))}})
	}
	ctx := h.stopAfter(5) // polls at 0, 20, 40, 60, 80 minutes
	if err := h.agent.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	var ids []string
	for _, r := range h.svc.Replies() {
		ids = append(ids, r.StepID)
	}
	// Sent at 0; identical at 20 and 40 min; the hour has passed at 60.
	if strings.Join(ids, ",") != "inventory-0000000a,inventory-0000000d" {
		t.Fatalf("replies sent for %v", ids)
	}
}

func TestFailedOutputsAreAlwaysSent(t *testing.T) {
	h := newHarness(t, "")
	unknown := func(id string) models.Steps {
		return models.Steps{Instructions: []*models.Step{{StepID: id, StepType: "no-such-step"}}}
	}
	h.svc.Push(unknown("no-such-step-1"), unknown("no-such-step-2"))
	if err := h.agent.Run(h.stopAfter(2)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	if n := len(h.svc.Replies()); n != 2 {
		t.Fatalf("%d replies, want both failures", n)
	}
}

func TestNoRunnerCommandWaitsAnHour(t *testing.T) {
	h := newHarness(t, "")
	h.svc.SetNoRunner(true)
	ctx := h.stopAfter(1)
	if err := h.agent.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	if got := h.clock.Sleeps(); len(got) != 1 || got[0] != time.Hour {
		t.Fatalf("waits %v, want one hour", got)
	}
}

func TestRefusedPollStops(t *testing.T) {
	h := newHarness(t, "")
	h.svc.SetStepsStatus(404)
	if err := h.agent.Run(context.Background()); !errors.Is(err, agent.ErrRefused) {
		t.Fatalf("Run: %v", err)
	}
}
