package hosts

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

const (
	testInfraEnv = "11111111-1111-4111-8111-111111111111"
	testHost     = "22222222-2222-4222-8222-222222222222"
)

// clock is a settable clock shared by the store and the service.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// newService returns a service over a store holding one infra-env with
// one registered host, and the store's clock.
func newService(t *testing.T) (*Service, *enginetest.Store, *clock) {
	t.Helper()
	clk := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	st := enginetest.NewStoreAt(clk.now)
	ctx := context.Background()
	if _, err := st.Apply(ctx, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: testInfraEnv, Name: "rack"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Apply(ctx, &engine.RegisterHost{Host: engine.Host{ID: testHost, InfraEnvID: testInfraEnv,
		Status: models.HostStatusDiscoveringUnbound}}); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Store: st, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	return s, st, clk
}

func hostOf(st *enginetest.Store) engine.Host {
	var h engine.Host
	st.Read(func(m *engine.Model) { h, _ = m.Host(testHost) })
	return h
}

func eventNames(st *enginetest.Store) []string {
	var out []string
	st.Read(func(m *engine.Model) {
		for e := range m.Events(0) {
			out = append(out, e.Name+": "+e.Message)
		}
	})
	return out
}

// The domain refuses a bad update with no HTTP in sight: the refusal is
// engine.ErrInvalid (the REST API's 400, the Kubernetes API's Invalid) and
// nothing reaches the log; a good one is stored with its event.
func TestChangeHost(t *testing.T) {
	s, st, _ := newService(t)
	ctx := context.Background()
	before := st.Entries()
	bad := "boss"
	err := s.ChangeHost(ctx, testInfraEnv, testHost, models.HostUpdateParams{HostRole: &bad})
	if !errors.Is(err, engine.ErrInvalid) || !errors.Is(err, ErrInvalid) ||
		err.Error() != `bad request: host_role "boss" is not one of auto-assign, master, worker, arbiter` {
		t.Fatalf("bad role: %v", err)
	}
	if st.Entries() != before {
		t.Errorf("a refused update wrote %d entries", st.Entries()-before)
	}
	if err := s.ChangeHost(ctx, testInfraEnv, "33333333-3333-4333-8333-333333333333", models.HostUpdateParams{}); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("unknown host: %v", err)
	}
	role, name := "master", "node-1"
	if err := s.ChangeHost(ctx, testInfraEnv, testHost, models.HostUpdateParams{HostRole: &role, HostName: &name}); err != nil {
		t.Fatal(err)
	}
	if h := hostOf(st); h.Role != role || h.RequestedHostname != name {
		t.Errorf("host role %q hostname %q", h.Role, h.RequestedHostname)
	}
	want := "host_updated: Host " + testHost + ": role set to master, hostname set to node-1"
	if !slices.Contains(eventNames(st), want) {
		t.Errorf("events %q lack %q", eventNames(st), want)
	}
}

// A host silent for longer than DisconnectAfter is disconnected by a
// monitor pass, with its event.
func TestMonitorPassDisconnects(t *testing.T) {
	s, st, clk := newService(t)
	ctx := context.Background()
	if err := s.monitorPass(ctx); err != nil {
		t.Fatal(err)
	}
	if h := hostOf(st); h.Status == models.HostStatusDisconnectedUnbound {
		t.Fatalf("a host that just registered is %s", h.Status)
	}
	clk.add(validation.DefaultThresholds().DisconnectAfter + time.Minute)
	if err := s.monitorPass(ctx); err != nil {
		t.Fatal(err)
	}
	h := hostOf(st)
	if h.Status != models.HostStatusDisconnectedUnbound {
		t.Fatalf("silent host is %s (%s)", h.Status, h.StatusInfo)
	}
	want := "host_status_updated: Host " + testHost + ": updated status from " + models.HostStatusDiscoveringUnbound +
		" to " + models.HostStatusDisconnectedUnbound
	if !slices.ContainsFunc(eventNames(st), func(e string) bool { return strings.HasPrefix(e, want) }) {
		t.Errorf("no host_status_updated event: %q", eventNames(st))
	}
}

// A periodic step is handed out again only when its arguments change or
// the step interval passed.
func TestPeriodicStepsPaced(t *testing.T) {
	s, st, clk := newService(t)
	h := hostOf(st)
	types := func() []models.StepType {
		steps, err := s.PeriodicSteps(h)
		if err != nil {
			t.Fatal(err)
		}
		var out []models.StepType
		for _, x := range steps {
			out = append(out, x.StepType)
		}
		return out
	}
	if got := types(); !slices.Equal(got, []models.StepType{models.StepTypeNtpSynchronizer}) {
		t.Fatalf("first poll of an unbound host: %v", got)
	}
	if got := types(); len(got) != 0 {
		t.Errorf("second poll at once: %v", got)
	}
	clk.add(DefaultStepInterval)
	if got := types(); !slices.Equal(got, []models.StepType{models.StepTypeNtpSynchronizer}) {
		t.Errorf("poll after the step interval: %v", got)
	}
}

// An agent registers through the domain: a new host starts discovering
// with its event; the same host id in another infra-env is a conflict that
// writes nothing.
func TestRegister(t *testing.T) {
	s, st, _ := newService(t)
	ctx := context.Background()
	const other = "44444444-4444-4444-8444-444444444444"
	if err := s.Register(ctx, testInfraEnv, other, "v1", map[string]string{"request_id": "r1"}); err != nil {
		t.Fatal(err)
	}
	var h engine.Host
	st.Read(func(m *engine.Model) { h, _ = m.Host(other) })
	if h.Status != models.HostStatusDiscoveringUnbound || h.AgentVersion != "v1" {
		t.Errorf("registered host is %s with agent %q", h.Status, h.AgentVersion)
	}
	if !slices.Contains(eventNames(st), "host_registration_succeeded: Host "+other+": Successfully registered") {
		t.Errorf("events %q", eventNames(st))
	}
	const ie2 = "55555555-5555-4555-8555-555555555555"
	if _, err := st.Apply(ctx, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ie2, Name: "other"}}); err != nil {
		t.Fatal(err)
	}
	before := st.Entries()
	err := s.Register(ctx, ie2, other, "v1", nil)
	if !errors.Is(err, engine.ErrConflict) || st.Entries() != before {
		t.Errorf("registering in another infra-env: %v, %d entries written", err, st.Entries()-before)
	}
}
