package cluster

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
)

// Killing the leader elects another; writes through the survivors succeed
// (retried while the election runs) and the old leader catches up when it
// comes back.
func TestLeaderFailover(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	for i := range 10 {
		writeIE(t, r.nodes[i%3].st, i)
	}
	old := r.leader()
	r.kill(old)
	// Reads after Barrier see every acknowledged write, through the
	// election: the new leader's read index covers the old leader's log.
	for _, nd := range r.followers(old) {
		if err := nd.st.Barrier(context.Background()); err != nil {
			t.Fatalf("%s: barrier during the election: %v", nd.id, err)
		}
		for i := range 10 {
			if !hasIE(nd.st, i) {
				t.Errorf("%s: acknowledged write %d missing after Barrier", nd.id, i)
			}
		}
	}
	for i := 10; i < 40; i++ {
		writeIE(t, r.followers(old)[i%2].st, i)
	}
	ld := r.leader()
	if ld == old {
		t.Fatal("the closed node leads")
	}
	r.start(old)
	want := r.converge()
	for i := range 40 {
		if !hasIE(old.st, i) {
			t.Errorf("restarted old leader misses write %d", i)
		}
	}
	if len(want) == 0 {
		t.Error("empty model")
	}
}

// Removing a voter and adding a new one (which joins through a follower)
// while writes go on loses no acknowledged write.
func TestMembershipWhileWriting(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	ld := r.leader()
	fs := r.followers(ld)

	ctx, cancel := context.WithCancel(context.Background())
	var acked sync.Map
	var n atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 1000; ctx.Err() == nil; i++ {
			_, err := createIE(context.Background(), ld.st, i)
			if errors.Is(err, engine.ErrNotLeader) {
				// Leadership lost while committing: the outcome is
				// unknown, the write is not acknowledged.
				t.Logf("write %d: %v", i, err)
				continue
			}
			if err != nil {
				t.Errorf("write %d: %v", i, err)
				return
			}
			acked.Store(i, true)
			n.Add(1)
		}
	})

	gone := fs[0]
	if err := fs[1].st.RemoveMember(context.Background(), gone.id); err != nil {
		t.Fatal(err)
	}
	r.stop(gone)
	n4 := r.add("n4")
	cfg := r.config(n4)
	cfg.Bootstrap, cfg.Join = nil, fs[1].addr
	st, err := openCtx(cfg, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	n4.st = st
	deadline := time.Now().Add(60 * time.Second)
	for n.Load() < 200 && !t.Failed() {
		if time.Now().After(deadline) {
			cancel()
			wg.Wait()
			t.Fatalf("only %d writes acknowledged within a minute", n.Load())
		}
		waitFor(10 * time.Millisecond)
	}
	cancel()
	wg.Wait()

	r.converge()
	status, err := n4.st.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, m := range status.Members {
		ids[m.ID] = true
	}
	if len(ids) != 3 || ids[gone.id] || !ids["n4"] {
		t.Errorf("members after remove+add: %v", ids)
	}
	missing := 0
	acked.Range(func(k, _ any) bool {
		if !hasIE(n4.st, k.(int)) {
			missing++
		}
		return true
	})
	if missing > 0 {
		t.Errorf("%d acknowledged writes missing on the new member", missing)
	}
	t.Logf("%d writes during the membership changes", n.Load())
}

// All three nodes closed and reopened from their data directories hold
// the whole state.
func TestRestartAll(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	for i := range 30 {
		writeIE(t, r.nodes[i%3].st, i)
	}
	if err := r.nodes[0].st.Snapshot(); err != nil {
		t.Fatal(err)
	}
	for i := 30; i < 40; i++ {
		writeIE(t, r.nodes[i%3].st, i)
	}
	before := r.converge()
	for _, nd := range r.nodes {
		r.stop(nd)
	}
	r.start(r.nodes...)
	after := r.converge()
	if string(before) != string(after) {
		t.Errorf("state after restarting all nodes differs:\n%s\n---\n%s", before, after)
	}
	writeIE(t, r.nodes[1].st, 40)
}

// A controller's write carrying the term it led in is rejected once
// another leader was elected, even forwarded to the new leader.
func TestFencedWriteFromOldTerm(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	ctx := context.Background()
	old := r.leader()
	oldTerm, ok := old.st.LeaderTerm()
	if !ok || oldTerm == 0 {
		t.Fatalf("LeaderTerm = %d, %v", oldTerm, ok)
	}
	fenced := engine.Fence(old.st)
	if _, err := createIE(ctx, fenced, 1); err != nil {
		t.Fatalf("fenced write in its own term: %v", err)
	}

	r.kill(old)
	ld := r.leader()
	f := r.followers(ld)[0]
	stale := &engine.Fenced{Term: oldTerm, Cmd: &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: uuid(2), Name: "late"}}}
	for _, via := range []*rackNode{ld, f} {
		_, err := via.st.Apply(ctx, stale)
		if !errors.Is(err, engine.ErrConflict) {
			t.Errorf("late write of term %d through %s: %v, want ErrConflict (stale term)", oldTerm, via.id, err)
		}
	}
	if hasIE(ld.st, 2) || hasIE(f.st, 2) {
		t.Error("a stale fenced write changed the state")
	}
	if _, err := createIE(ctx, engine.Fence(ld.st), 3); err != nil {
		t.Errorf("the new leader's fenced write: %v", err)
	}
	if _, err := createIE(ctx, engine.Fence(f.st), 4); !errors.Is(err, engine.ErrConflict) {
		t.Errorf("a follower's fenced write: %v, want ErrConflict", err)
	}
}

// A leader that stops (rather than crashes) hands its leadership over.
func TestStopHandsOver(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	old := r.leader()
	r.stop(old)
	old.log.waitLog(t, "handed the leadership over before stopping")
	ld := r.leader()
	writeIE(t, ld.st, 1)
	if ld == old {
		t.Fatal("the stopped node leads")
	}
}
