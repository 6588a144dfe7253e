package ha

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// TestLinearizableUnderFaults records API operations of several clients
// (PATCH and GET of infra-envs' additional NTP sources, each infra-env a
// register) through the service address and every appliance's own
// address while the leader is killed and restarted, a leader is cut off
// and plugged back, all three are killed and restarted, and a fourth is
// added and a follower removed; porcupine checks the history against a key-value register
// model: no acknowledged write lost, no read going back in time.
func TestLinearizableUnderFaults(t *testing.T) {
	requireE2E(t)
	ctx := testContext(t, 5*time.Minute)
	r, _ := startRack(t, ctx, Options{})
	api := r.API(3 * time.Second)
	keys, initial, err := CreateKeys(ctx, api, ServiceURL(), 4)
	if err != nil {
		t.Fatal(err)
	}
	targets := []string{ServiceURL()}
	for _, n := range r.Nodes {
		targets = append(targets, n.URL())
	}
	w := &Workload{API: api, Keys: keys, Targets: targets, Clients: 4, Hist: NewHistory()}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); w.Run(wctx) }()

	phase := func(what string, d time.Duration) {
		t.Helper()
		t.Logf("%s; workload for %s", what, d)
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(d):
		}
	}
	faults(t, ctx, r, phase)
	stop()
	<-done
	if err := w.FinalReads(ctx, ServiceURL()); err != nil {
		t.Fatal(err)
	}
	h := w.Hist
	t.Logf("history: %d writes acknowledged, %d of unknown outcome, %d refused, %d reads", h.Acked, h.Unknown, h.Failed, h.Reads)
	if h.Acked < 50 || h.Reads < 50 {
		t.Fatalf("too little traffic to say anything: %d acknowledged writes, %d reads", h.Acked, h.Reads)
	}
	vis := filepath.Join(r.opts.Dir, "history.html")
	res, err := h.Check(initial, time.Minute, vis)
	if err != nil {
		t.Fatal(err)
	}
	if res != porcupine.Ok {
		for _, s := range h.StaleReads() {
			t.Log(s)
		}
	}
	switch res {
	case porcupine.Ok:
	case porcupine.Illegal:
		t.Fatalf("the API history is not linearizable (visualization: %s)", vis)
	default:
		t.Fatalf("the linearizability check did not finish (visualization: %s)", vis)
	}
}

// faults runs the fault schedule: kill -9 the leader, restart it, cut the
// new leader off, plug it back, kill all three and start them again, add a
// fourth appliance, remove a follower; workload phases in between.
func faults(t *testing.T, ctx context.Context, r *Rack, phase func(string, time.Duration)) {
	t.Helper()
	phase("steady", 3*time.Second)
	leader, err := r.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := leader.Kill(); err != nil {
		t.Fatal(err)
	}
	phase("killed "+leader.Name, 4*time.Second)
	if err := leader.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := leader.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
	phase("restarted "+leader.Name, 3*time.Second)
	next, err := r.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := next.Cut(ctx); err != nil {
		t.Fatal(err)
	}
	phase("cut off "+next.Name, 4*time.Second)
	if err := next.Restore(ctx); err != nil {
		t.Fatal(err)
	}
	phase("plugged back "+next.Name, 3*time.Second)
	for _, n := range r.Nodes {
		if err := n.Kill(); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	phase("killed all three and started them again", 3*time.Second)
	n3, err := r.AddNode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := n3.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Ctl(ctx, "cluster", "join", "--node-id", n3.Name, "--addr", n3.RaftAddr()); err != nil {
		t.Fatal(err)
	}
	if err := n3.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
	phase("added "+n3.Name, 2*time.Second)
	leader, err = r.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gone := r.Nodes[(leader.Index+1)%3]
	if _, err := r.Ctl(ctx, "cluster", "remove", gone.Name); err != nil {
		t.Fatal(err)
	}
	phase("removed "+gone.Name, 3*time.Second)
}
