package ha

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestCutLeaderOff: the leader's cable is pulled. It steps down, drops
// the service address and stops answering DHCP (its log says so); the
// other two elect a leader, which takes the address, answers a new DHCP
// client and takes writes. Plugged back in, the old leader follows and
// catches up with what was written meanwhile; no acknowledged write is
// lost.
func TestCutLeaderOff(t *testing.T) {
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

	standbyLines := strings.Count(leader.Log(), "not leading: DHCP")
	cut := time.Now()
	if err := leader.Cut(ctx); err != nil {
		t.Fatal(err)
	}
	err := poll(ctx, 20*time.Millisecond, func() (bool, error) {
		held, err := leader.HoldsVIP(ctx)
		return !held, err
	})
	if err != nil {
		t.Fatalf("the cut-off leader kept the service address: %v", err)
	}
	dropped := time.Since(cut)
	err = poll(ctx, 20*time.Millisecond, func() (bool, error) {
		return strings.Count(leader.Log(), "not leading: DHCP") > standbyLines, nil
	})
	if err != nil {
		t.Fatalf("the cut-off leader does not say it stopped answering DHCP: %v", err)
	}
	next, err := r.WaitVIP(ctx, leader)
	if err != nil {
		t.Fatal(err)
	}
	moved := time.Since(cut)
	if l, err := r.Leader(ctx, leader); err != nil || l != next {
		t.Fatalf("the service address is on %s, the leader is %v (%v)", next.Name, l, err)
	}
	t.Logf("%s cut off: dropped the service address after %s; %s holds it after %s",
		leader.Name, dropped.Round(time.Millisecond), next.Name, moved.Round(time.Millisecond))

	c, err := r.StartDHCPClient(ctx, t.TempDir(), clientMAC)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bound, _, err := c.WaitEvent(ctx, 0, "bound")
	if err != nil {
		t.Fatal(err)
	}
	if got := repliedTo(r, clientMAC); bound.ServerID != ServiceAddr || len(got) != 1 || got[0] != next.Name {
		t.Fatalf("lease %+v with replies from %v, want server id %s and replies from %s only", bound, got, ServiceAddr, next.Name)
	}
	w.waitAcked(t, ctx, 10)

	if err := leader.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := r.Status(ctx, next)
	if err != nil {
		t.Fatal(err)
	}
	err = poll(ctx, 50*time.Millisecond, func() (bool, error) {
		mine, err := r.LocalStatus(ctx, leader)
		return err == nil && mine.Applied >= st.Commit && mine.Leader == next.Name, nil
	})
	if err != nil {
		t.Fatalf("%s did not catch up with %s (commit index %d) after it was plugged back in: %v", leader.Name, next.Name, st.Commit, err)
	}
	if held, err := leader.HoldsVIP(ctx); err != nil || held {
		t.Fatalf("%s holds the service address again after it came back (%v)", leader.Name, err)
	}
	w.waitAcked(t, ctx, 5)
	stopWriter()
	<-done
	w.checkAcked(t, ctx, api, ServiceURL())
}
