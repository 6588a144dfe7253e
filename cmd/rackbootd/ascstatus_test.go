package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// leaderStore is a store whose leadership the test hands over.
type leaderStore struct {
	*enginetest.Store
	leader  atomic.Bool
	changes chan bool
}

func (s *leaderStore) Leader() bool { return s.leader.Load() }

// LeaderChanges forwards the test's changes until ctx ends (one
// subscriber).
func (s *leaderStore) LeaderChanges(ctx context.Context) <-chan bool {
	out := make(chan bool)
	go func() {
		defer close(out)
		for {
			select {
			case <-ctx.Done():
				return
			case l := <-s.changes:
				select {
				case out <- l:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out
}

// ascCond is the AgentServiceConfig's ReconcileCompleted condition as
// "status reason message" ("" when it has none).
func ascCond(s engine.Store) string {
	var out string
	s.Read(func(m *engine.Model) {
		o, _ := m.Object(engine.ObjectRef{Group: ascGroup, Kind: ascKind, Name: ascName}.Key())
		var b struct {
			Status struct {
				Conditions []struct{ Type, Status, Reason, Message string }
			}
		}
		_ = json.Unmarshal(o.Body, &b)
		for _, c := range b.Status.Conditions {
			if c.Type == "ReconcileCompleted" {
				out = c.Status + " " + c.Reason + " " + c.Message
			}
		}
	})
	return out
}

// A node that becomes the leader writes the AgentServiceConfig's status
// at once, though neither the object nor its osImages changed since it
// found them (a follower only keeps what it found); the entries the
// reload left out (here: no rackboot-agent for arm64) are in it beside
// those the fetch left out.
func TestAgentServiceConfigStatusWrittenByANewLeader(t *testing.T) {
	s := &leaderStore{Store: enginetest.NewStore(), changes: make(chan bool, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := s.Apply(ctx, &engine.PutObject{Create: true, Object: engine.Object{
		ObjectRef: engine.ObjectRef{Group: ascGroup, Kind: ascKind, Name: ascName}, UID: "asc",
		Body: json.RawMessage(`{"spec":{"osImages":[]}}`)}}); err != nil {
		t.Fatal(err)
	}
	const reloadOut = "osImages ocp-4.16-aarch64: open /agents/arm64/rackboot-agent: no such file or directory"
	r := newASCReporter(s, slog.New(slog.DiscardHandler), []string{reloadOut})
	done := make(chan struct{})
	go func() { defer close(done); r.run(ctx) }()
	defer func() { cancel(); <-done }()

	r.synced(ctx, nil, []string{"osImages ocp-4.17-x86_64: url: 404 Not Found"}, false)
	if c := ascCond(s); c != "" {
		t.Fatalf("a follower wrote the status: %s", c)
	}
	sub := s.Subscribe(ctx)
	s.leader.Store(true)
	s.changes <- true
	want := "False OSImagesFailure osImages entries left out: osImages ocp-4.17-x86_64: url: 404 Not Found; " + reloadOut
	for c := ascCond(s); c != want; c = ascCond(s) {
		if _, ok := <-sub; !ok {
			t.Fatalf("status %q, want %q", c, want)
		}
	}

	// A reload that leaves nothing out, and the status says so.
	r.reloaded(ctx, true, nil)
	if c := ascCond(s); !strings.HasPrefix(c, "False OSImagesFailure") || strings.Contains(c, "aarch64") {
		t.Errorf("after a reload leaving nothing out: %q", c)
	}
}
