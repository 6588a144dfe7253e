package ha

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

const clientMAC = "52:54:00:99:02:01"

// startRack builds and starts a rack of n appliances and returns it with
// its leader, which holds the service address.
func startRack(t *testing.T, ctx context.Context, opts Options) (*Rack, *Node) {
	t.Helper()
	r := newRack(t, ctx, opts)
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
		t.Fatalf("the service address is on %s, the leader is %s", holder.Name, leader.Name)
	}
	t.Logf("leader %s holds %s", leader.Name, ServiceAddr)
	return r, leader
}

// repliedTo lists the nodes whose log shows a DHCP reply to mac.
func repliedTo(r *Rack, mac string) []string {
	var out []string
	for _, n := range r.Nodes {
		for _, line := range strings.Split(n.Log(), "\n") {
			if strings.Contains(line, "msg=replied") && strings.Contains(line, "mac="+mac) {
				out = append(out, n.Name)
				break
			}
		}
	}
	return out
}

// waitNeigh waits until the client namespace's neighbour entry for the
// service address names mac.
func waitNeigh(t *testing.T, ctx context.Context, r *Rack, mac string) {
	t.Helper()
	var last string
	err := poll(ctx, 50*time.Millisecond, func() (bool, error) {
		out, err := r.Client.Run(ctx, "ip", "neigh", "show", ServiceAddr, "dev", "eth0")
		last = strings.TrimSpace(out)
		return err == nil && strings.Contains(last, "lladdr "+mac), err
	})
	if err != nil {
		t.Fatalf("the client's neighbour entry for %s is %q, want %s: %v", ServiceAddr, last, mac, err)
	}
}

// writer creates infra-envs through base until ctx ends and remembers the
// acknowledged ones.
type writer struct {
	mu      sync.Mutex
	acked   []InfraEnv
	tried   int
	lastErr error
}

func (w *writer) run(ctx context.Context, api *API, base string) {
	for i := 0; ctx.Err() == nil; i++ {
		ie, err := api.CreateInfraEnv(ctx, base, fmt.Sprintf("w-%d", i), fmt.Sprintf("w%d.ntp", i))
		w.mu.Lock()
		w.tried++
		if err == nil {
			w.acked = append(w.acked, ie)
		} else if ctx.Err() == nil {
			w.lastErr = err
		}
		w.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitAcked waits until n more writes than before are acknowledged.
func (w *writer) waitAcked(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	w.mu.Lock()
	want := len(w.acked) + n
	w.mu.Unlock()
	err := poll(ctx, 20*time.Millisecond, func() (bool, error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(w.acked) >= want, nil
	})
	if err != nil {
		t.Fatalf("waiting for %d acknowledged writes: %v (last error %v)", n, err, w.lastErr)
	}
}

// checkAcked: every acknowledged infra-env is there, through base.
func (w *writer) checkAcked(t *testing.T, ctx context.Context, api *API, base string) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ie := range w.acked {
		got, _, err := api.GetInfraEnv(ctx, base, ie.ID)
		if err != nil || got.NTP != ie.NTP {
			t.Errorf("acknowledged infra-env %s (%s) lost: %+v %v", ie.ID, ie.Name, got, err)
		}
	}
	t.Logf("%d of %d writes acknowledged, all present (last error: %v)", len(w.acked), w.tried, w.lastErr)
}

// TestKillLeader: three appliances; exactly the leader answers DHCP, with
// the service address as server identifier; kill -9 the leader: another
// leads, the service address moves to it (the client namespace's ARP
// entry names its MAC, by gratuitous ARP), the API takes writes through
// the service address again, the DHCP client's renewal is honoured with
// the same address, and no acknowledged write is lost.
func TestKillLeader(t *testing.T) {
	requireE2E(t)
	ctx := testContext(t, 4*time.Minute)
	r, leader := startRack(t, ctx, Options{})
	c, err := r.StartDHCPClient(ctx, t.TempDir(), clientMAC)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bound, pos, err := c.WaitEvent(ctx, 0, "bound")
	if err != nil {
		t.Fatal(err)
	}
	if bound.ServerID != ServiceAddr {
		t.Fatalf("lease %+v: server id is not the service address %s", bound, ServiceAddr)
	}
	if got := repliedTo(r, clientMAC); len(got) != 1 || got[0] != leader.Name {
		t.Fatalf("DHCP replies to the client came from %v, want only the leader %s", got, leader.Name)
	}

	api := r.API(5 * time.Second)
	wctx, stopWriter := context.WithCancel(ctx)
	w := &writer{}
	done := make(chan struct{})
	go func() { defer close(done); w.run(wctx, api, ServiceURL()) }()
	waitNeigh(t, ctx, r, leader.MAC)
	w.waitAcked(t, ctx, 10)

	killed := time.Now()
	if err := leader.Kill(); err != nil {
		t.Fatal(err)
	}
	next, err := r.WaitVIP(ctx, leader)
	if err != nil {
		t.Fatal(err)
	}
	vipAt := time.Since(killed)
	if l, err := r.Leader(ctx, leader); err != nil || l != next {
		t.Fatalf("the service address is on %s, the leader is %v (%v)", next.Name, l, err)
	}
	waitNeigh(t, ctx, r, next.MAC)
	if _, err := api.CreateInfraEnv(ctx, ServiceURL(), "after-kill", "a.ntp"); err != nil {
		t.Fatalf("the API does not take writes through the service address after the failover: %v", err)
	}
	writesAt := time.Since(killed)
	if err := c.Renew(); err != nil {
		t.Fatal(err)
	}
	ev, _, err := c.WaitEvent(ctx, pos+1, "renew", "bound", "deconfig", "nak")
	if err != nil {
		t.Fatal(err)
	}
	if ev.Name != "renew" || ev.IP != bound.IP || ev.ServerID != ServiceAddr {
		t.Fatalf("after the failover the client's renewal got %+v, want renew of %s from %s", ev, bound.IP, ServiceAddr)
	}
	if got := repliedTo(r, clientMAC); !contains(r.nodes(got), next) {
		t.Fatalf("the new leader %s did not answer the renewal (replies from %v)", next.Name, got)
	}
	t.Logf("after kill -9 of %s: %s holds the service address after %s, takes writes after %s, renewal honoured after %s",
		leader.Name, next.Name, vipAt.Round(time.Millisecond), writesAt.Round(time.Millisecond), time.Since(killed).Round(time.Millisecond))
	w.waitAcked(t, ctx, 10)
	stopWriter()
	<-done
	w.checkAcked(t, ctx, api, ServiceURL())
}
