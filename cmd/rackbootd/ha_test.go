package main

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"

	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
	"github.com/rackboot/rackboot/dhcp"
)

// switchedLeadership is a leadership whose changes the test sends.
type switchedLeadership chan bool

func (s switchedLeadership) LeaderChanges(context.Context) <-chan bool { return s }

func (s switchedLeadership) Barrier(ctx context.Context) error { return ctx.Err() }

// TestDHCPOnlyWhileLeading: a follower reads and drops DHCP requests; once
// it leads it answers new ones and never the ones it dropped; deposed, it
// drops again.
func TestDHCPOnlyWhileLeading(t *testing.T) {
	srv, err := dhcp.New(dhcp.Config{
		// A large pool: each retransmitted DISCOVER may be offered another
		// address, and a loaded machine makes the test retransmit a lot.
		ServerIP: netip.MustParseAddr("10.99.0.1"), Subnet: netip.MustParsePrefix("10.99.0.0/16"),
		Ranges: []dhcp.Range{{Start: netip.MustParseAddr("10.99.1.0"), End: netip.MustParseAddr("10.99.255.254")}},
	}, dhcp.NewMemoryLeases(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	l := &leaderDHCP{srv: srv, conns: []net.PacketConn{conn}, log: slog.New(slog.DiscardHandler)}
	lead := make(switchedLeadership, 1)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- l.serve(ctx, lead) }()

	send := func(xid byte) {
		t.Helper()
		mac := net.HardwareAddr{0x52, 0x54, 0, 0, 0, xid}
		d, err := dhcpv4.NewDiscovery(mac, dhcpv4.WithTransactionID(dhcpv4.TransactionID{0, 0, 0, xid}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := client.WriteTo(d.ToBytes(), conn.LocalAddr()); err != nil {
			t.Fatal(err)
		}
	}
	// dropped sends xid, one at a time, until the follower drops one (the
	// switch to following happens some time after the test sends it: until
	// then the leader answers). Each request is either answered or counted
	// as dropped before the next goes out, so none is left in flight.
	dropped := func(xid byte) {
		t.Helper()
		buf := make([]byte, 1500)
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			before := l.dropped.Load()
			send(xid)
			for time.Now().Before(deadline) {
				if l.dropped.Load() > before {
					return
				}
				client.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
				if _, _, err := client.ReadFrom(buf); err == nil {
					break // answered: still leading
				}
			}
		}
		t.Fatalf("the follower dropped no request within 10 s")
	}
	// firstReply sends xid until an answer comes (the switch to leading
	// happens some time after the test sends it) and returns the xid of the
	// first answer.
	firstReply := func(xid byte) byte {
		t.Helper()
		buf := make([]byte, 1500)
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			send(xid)
			client.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			n, _, err := client.ReadFrom(buf)
			if err != nil {
				continue
			}
			r, err := dhcpv4.FromBytes(buf[:n])
			if err != nil {
				t.Fatal(err)
			}
			if r.MessageType() != dhcpv4.MessageTypeOffer {
				t.Fatalf("got %s, want an OFFER", r.MessageType())
			}
			return r.TransactionID[3]
		}
		t.Fatal("no answer from the leader within 10 s")
		return 0
	}

	lead <- false
	dropped(1)
	lead <- true
	if got := firstReply(2); got != 2 {
		t.Fatalf("the new leader's first answer is to xid %d, want 2 (1 arrived before it led)", got)
	}
	lead <- false
	dropped(3)
	lead <- true
	if got := firstReply(4); got != 4 {
		t.Fatalf("the leader's first answer after leading again is to xid %d, want 4", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// gatedLeadership leads at once; its barrier returns once released.
type gatedLeadership struct {
	changes chan bool
	release chan struct{}
}

func (g gatedLeadership) LeaderChanges(context.Context) <-chan bool { return g.changes }

func (g gatedLeadership) Barrier(ctx context.Context) error {
	select {
	case <-g.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestDHCPWaitsForBarrier: a new leader does not answer (it drops) until
// its barrier says it has applied every lease committed before it led.
func TestDHCPWaitsForBarrier(t *testing.T) {
	srv, err := dhcp.New(dhcp.Config{
		ServerIP: netip.MustParseAddr("10.99.0.1"), Subnet: netip.MustParsePrefix("10.99.0.0/16"),
		Ranges: []dhcp.Range{{Start: netip.MustParseAddr("10.99.1.0"), End: netip.MustParseAddr("10.99.255.254")}},
	}, dhcp.NewMemoryLeases(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	l := &leaderDHCP{srv: srv, conns: []net.PacketConn{conn}, log: slog.New(slog.DiscardHandler)}
	g := gatedLeadership{changes: make(chan bool, 1), release: make(chan struct{})}
	g.changes <- true
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- l.serve(ctx, g) }()
	send := func(xid byte) {
		d, err := dhcpv4.NewDiscovery(net.HardwareAddr{0x52, 0x54, 0, 0, 1, xid}, dhcpv4.WithTransactionID(dhcpv4.TransactionID{0, 0, 1, xid}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := client.WriteTo(d.ToBytes(), conn.LocalAddr()); err != nil {
			t.Fatal(err)
		}
	}
	send(1)
	deadline := time.Now().Add(10 * time.Second)
	for l.dropped.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the request sent before the barrier returned was neither dropped nor answered")
		}
		<-time.After(time.Millisecond)
	}
	close(g.release)
	buf := make([]byte, 1500)
	for {
		if time.Now().After(deadline) {
			t.Fatal("no answer after the barrier returned")
		}
		send(2)
		client.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		n, _, err := client.ReadFrom(buf)
		if err != nil {
			continue
		}
		r, err := dhcpv4.FromBytes(buf[:n])
		if err != nil {
			t.Fatal(err)
		}
		if r.TransactionID[3] != 2 {
			t.Fatalf("answered xid %d, sent before the barrier returned", r.TransactionID[3])
		}
		break
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestVIPChangeNeedsRestart: a reload cannot move the service address (it
// is set up at start); the same one is no change.
func TestVIPChangeNeedsRestart(t *testing.T) {
	mk := func(vip, ifname string) *config.Config {
		return &config.Config{Cluster: &config.Cluster{NodeID: "rb1", VIP: netip.MustParsePrefix(vip), VIPInterface: ifname}}
	}
	if clusterChanged(mk("10.99.0.1/24", "br0"), mk("10.99.0.1/24", "br0")) {
		t.Error("the same service address counts as a change")
	}
	if !clusterChanged(mk("10.99.0.1/24", "br0"), mk("10.99.0.2/24", "br0")) {
		t.Error("a new service address does not need a restart")
	}
	if !clusterChanged(mk("10.99.0.1/24", "br0"), mk("10.99.0.1/24", "eth0")) {
		t.Error("a new service address interface does not need a restart")
	}
}
