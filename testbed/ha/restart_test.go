package ha

import (
	"context"
	"testing"
	"time"
)

// TestKillAllAndRestart: with writes going on, all three appliances are
// killed (SIGKILL) at once and started again: a leader is elected, holds
// the service address, and every acknowledged write is there.
func TestKillAllAndRestart(t *testing.T) {
	requireE2E(t)
	ctx := testContext(t, 4*time.Minute)
	r, _ := startRack(t, ctx, Options{})
	api := r.API(5 * time.Second)
	wctx, stopWriter := context.WithCancel(ctx)
	w := &writer{}
	done := make(chan struct{})
	go func() { defer close(done); w.run(wctx, api, ServiceURL()) }()
	w.waitAcked(t, ctx, 20)
	for _, n := range r.Nodes {
		if err := n.Kill(); err != nil {
			t.Fatal(err)
		}
	}
	stopWriter()
	<-done
	restarted := time.Now()
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	leader, err := r.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	holder, err := r.WaitVIP(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if holder != leader {
		t.Fatalf("after the restart the service address is on %s, the leader is %s", holder.Name, leader.Name)
	}
	t.Logf("all three restarted: %s leads and holds the service address after %s", leader.Name, time.Since(restarted).Round(time.Millisecond))
	w.checkAcked(t, ctx, api, ServiceURL())
}

// TestMembershipWhileServing: with writes going on, a fourth appliance is
// added (rackbootctl cluster join) and catches up; then the leader is
// removed (rackbootctl cluster remove): it gives up the service address,
// another of the remaining three takes it, writes go on, and no
// acknowledged write is lost.
func TestMembershipWhileServing(t *testing.T) {
	requireE2E(t)
	ctx := testContext(t, 4*time.Minute)
	r, leader := startRack(t, ctx, Options{})
	api := r.API(5 * time.Second)
	wctx, stopWriter := context.WithCancel(ctx)
	defer stopWriter()
	w := &writer{}
	done := make(chan struct{})
	go func() { defer close(done); w.run(wctx, api, ServiceURL()) }()
	w.waitAcked(t, ctx, 10)

	n3, err := r.AddNode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := n3.Start(ctx); err != nil {
		t.Fatal(err)
	}
	out, err := r.Ctl(ctx, "cluster", "join", "--node-id", n3.Name, "--addr", n3.RaftAddr())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rackbootctl cluster join:\n%s", out)
	if err := n3.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
	waitMembers(t, ctx, r, 4)
	waitCaughtUp(t, ctx, r, n3)
	w.waitAcked(t, ctx, 10)

	// Through a follower: the leader drops the service address as it
	// steps down, which cuts off an answer it would send through it.
	via := r.Nodes[(leader.Index+1)%3]
	if out, err = r.CtlVia(ctx, via.URL(), "cluster", "remove", leader.Name); err != nil {
		t.Fatal(err)
	}
	t.Logf("rackbootctl cluster remove %s:\n%s", leader.Name, out)
	next, err := r.WaitVIP(ctx, leader)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := r.Leader(ctx, leader); err != nil || l != next {
		t.Fatalf("the service address is on %s, the leader is %v (%v)", next.Name, l, err)
	}
	waitMembers(t, ctx, r, 3)
	w.waitAcked(t, ctx, 10)
	stopWriter()
	<-done
	w.checkAcked(t, ctx, api, ServiceURL())
}

// waitMembers waits until the leader lists n members.
func waitMembers(t *testing.T, ctx context.Context, r *Rack, n int) {
	t.Helper()
	var got int
	err := poll(ctx, 100*time.Millisecond, func() (bool, error) {
		l, err := r.Leader(ctx)
		if err != nil {
			return false, err
		}
		st, err := r.Status(ctx, l)
		got = len(st.Members)
		return err == nil && got == n, nil
	})
	if err != nil {
		t.Fatalf("the cluster has %d members, want %d: %v", got, n, err)
	}
}

// waitCaughtUp waits until n has applied what the leader had committed.
func waitCaughtUp(t *testing.T, ctx context.Context, r *Rack, n *Node) {
	t.Helper()
	l, err := r.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, err := r.Status(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	err = poll(ctx, 50*time.Millisecond, func() (bool, error) {
		mine, err := r.Status(ctx, n)
		return err == nil && mine.Applied >= st.Commit, nil
	})
	if err != nil {
		t.Fatalf("%s did not catch up with the leader's commit index %d: %v", n.Name, st.Commit, err)
	}
}
