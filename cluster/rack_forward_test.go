package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
)

// A write at a follower is forwarded to the leader and returns the same
// result, domain errors included, and the follower reads its own write.
func TestForwardFromFollower(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	ld := r.leader()
	f := r.followers(ld)[0]
	ctx := context.Background()

	ie, err := createIE(ctx, f.st, 1)
	if err != nil {
		t.Fatal(err)
	}
	if ie.ID != uuid(1) || ie.Revision == 0 || ie.CreatedAt.IsZero() {
		t.Errorf("forwarded result %#v", ie)
	}
	if !hasIE(f.st, 1) {
		t.Error("the follower does not read its own forwarded write")
	}
	if _, err := applyAgain(f.st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: uuid(1), Name: "again"}}); !errors.Is(err, engine.ErrConflict) {
		t.Errorf("duplicate through a follower: %v, want ErrConflict", err)
	}
	if _, err := applyAgain(f.st, &engine.DeleteHost{ID: ieID}); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("delete of nothing through a follower: %v, want ErrNotFound", err)
	}
	if f.st.Stats().LastIndex == 0 || !hasIE(ld.st, 1) {
		t.Error("the leader does not hold the forwarded write")
	}

	// Barrier makes a follower's read linearizable: a write acknowledged
	// by the leader is visible on every follower after Barrier.
	for i := 2; i < 30; i++ {
		writeIE(t, ld.st, i)
		for _, fl := range r.followers(ld) {
			if err := fl.st.Barrier(ctx); err != nil {
				t.Fatal(err)
			}
			if !hasIE(fl.st, i) {
				t.Fatalf("%s: write %d acknowledged by the leader is missing after Barrier", fl.id, i)
			}
		}
	}
	r.converge()
}

// Subscribe and LeaderChanges work on a follower.
func TestFollowerFeeds(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	ld := r.leader()
	f := r.followers(ld)[0]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if v := <-f.st.LeaderChanges(ctx); v {
		t.Error("a follower reports leadership")
	}
	changes := f.st.Subscribe(ctx)
	if _, err := createIE(ctx, ld.st, 7); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-changes:
		if c.Kind != engine.KindInfraEnv || c.ID != uuid(7) {
			t.Errorf("follower change %+v", c)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no change on the follower's feed")
	}
}
