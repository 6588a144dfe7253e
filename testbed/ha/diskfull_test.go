package ha

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestDiskFullLeader: the leader's data directory (a small tmpfs) fills
// up. It cannot store log entries any more: it stops taking part (gives
// up leadership and the service address) and its log says why ("data
// directory full"); the other two elect a leader, which takes the address
// and the writes; no acknowledged write is lost.
func TestDiskFullLeader(t *testing.T) {
	requireE2E(t)
	ctx := testContext(t, 4*time.Minute)
	r := newRack(t, ctx, Options{})
	for _, n := range r.Nodes {
		if err := n.UseTmpfs(ctx, 64); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	leader, err := r.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	api := r.API(5 * time.Second)
	wctx, stopWriter := context.WithCancel(ctx)
	defer stopWriter()
	w := &writer{}
	done := make(chan struct{})
	go func() { defer close(done); w.run(wctx, api, ServiceURL()) }()
	w.waitAcked(t, ctx, 10)

	filled, err := leader.FillDisk()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("filled %s's data directory with %d MiB", leader.Name, filled>>20)
	next, err := r.WaitVIP(ctx, leader)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := r.Leader(ctx, leader); err != nil || l != next {
		t.Fatalf("the service address is on %s, the leader is %v (%v)", next.Name, l, err)
	}
	w.waitAcked(t, ctx, 20)
	if held, err := leader.HoldsVIP(ctx); err != nil || held {
		t.Fatalf("the full appliance holds the service address (%v)", err)
	}
	var said []string
	for _, line := range strings.Split(leader.Log(), "\n") {
		if strings.Contains(line, "no space left on device") && len(said) < 3 {
			said = append(said, line)
		}
	}
	if len(said) == 0 {
		t.Errorf("the full appliance's log does not name the failed writes (no space left on device)")
	}
	if !strings.Contains(leader.Log(), "data directory full") {
		t.Errorf("the full appliance does not say it stops taking part")
	}
	t.Logf("%s says:\n%s", leader.Name, strings.Join(said, "\n"))
	stopWriter()
	<-done
	w.checkAcked(t, ctx, api, ServiceURL())
}
