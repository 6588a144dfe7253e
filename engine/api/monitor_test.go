package api

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// A host silent for longer than DisconnectAfter is disconnected by the
// monitor, and comes back when it polls again.
func TestMonitorDisconnects(t *testing.T) {
	e := newMemEnv(t)
	ie := e.createInfraEnv("")
	h := agentFlow(t, e, ie.ID)
	if h.Status == models.HostStatusDisconnectedUnbound {
		t.Fatalf("host already disconnected")
	}
	clock := &fakeClock{t: time.Now()}
	opts := Options{Store: e.store, AdminToken: testAdmin, Keys: e.keys, ServiceURL: e.srv.URL, Now: clock.now,
		Log: slog.New(slog.DiscardHandler)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	mon, err := hosts.New(opts.HostOptions())
	if err != nil {
		t.Fatal(err)
	}
	go func() { done <- mon.Monitor(ctx, 5*time.Millisecond, nil) }()
	stop := func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	clock.add(validation.DefaultThresholds().DisconnectAfter + time.Minute)
	status := func() string {
		var got engine.Host
		e.store.Read(func(m *engine.Model) { got, _ = m.Host(testHostID) })
		return got.Status
	}
	deadline := time.Now().Add(10 * time.Second)
	for status() != models.HostStatusDisconnectedUnbound {
		if time.Now().After(deadline) {
			t.Fatalf("host is %q, want %q", status(), models.HostStatusDisconnectedUnbound)
		}
		<-time.After(5 * time.Millisecond)
	}
	var evs []models.Event
	e.must(adminCred(), 200, "GET", "/events?host_id="+testHostID, nil).decode(t, &evs)
	if last := evs[len(evs)-1]; last.Severity != "warning" || last.Name != "host_status_updated" {
		t.Errorf("last event %+v", last)
	}
	stop()
	// The agent polls again (the handler's clock is the real one).
	e.must(cred{agent: e.agentConfig(ie.ID).Token}, 200, "GET", "/infra-envs/"+ie.ID+"/hosts/"+testHostID+"/instructions", nil)
	if got := status(); got != h.Status {
		t.Errorf("after polling again the host is %q, want %q", got, h.Status)
	}
	if _, err := New(Options{Store: e.store}); err == nil {
		t.Errorf("options without a token accepted")
	}
}
