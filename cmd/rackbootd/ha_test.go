package main

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"

	"github.com/rackboot/rackboot/dhcp"
)

// switchedLeadership is a leadership whose changes the test sends.
type switchedLeadership chan bool

func (s switchedLeadership) LeaderChanges(context.Context) <-chan bool { return s }

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
