package ha

import (
	"testing"
	"time"
)

// TestOneNodeRack: a one-appliance rack (a one-voter cluster) holds the
// service address and answers DHCP with it as server identifier; a udhcpc
// client in its own namespace gets a lease from the range, and keeps it
// across a kill -9 and restart of the appliance (whose new run removes the
// stale address at start and adds it again once it leads).
func TestOneNodeRack(t *testing.T) {
	requireE2E(t)
	ctx := testContext(t, 2*time.Minute)
	r := newRack(t, ctx, Options{Nodes: 1})
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.WaitVIP(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := r.StartDHCPClient(ctx, t.TempDir(), "52:54:00:99:01:01")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bound, pos, err := c.WaitEvent(ctx, 0, "bound")
	if err != nil {
		t.Fatal(err)
	}
	if bound.ServerID != ServiceAddr || bound.IP != RangeStart {
		t.Fatalf("udhcpc bound %+v, want %s from server %s", bound, RangeStart, ServiceAddr)
	}
	n := r.Nodes[0]
	if err := n.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.WaitVIP(ctx); err != nil {
		t.Fatal(err)
	}
	// The renewal goes by unicast to the server identifier, the service
	// address.
	if err := c.Renew(); err != nil {
		t.Fatal(err)
	}
	ev, _, err := c.WaitEvent(ctx, pos+1, "renew", "bound", "deconfig", "nak")
	if err != nil {
		t.Fatal(err)
	}
	if ev.Name != "renew" || ev.IP != bound.IP || ev.ServerID != ServiceAddr {
		t.Fatalf("after kill -9 and restart the client got %+v, want its address %s again", ev, bound.IP)
	}
}
