package vip

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/testbed/netns"
)

// The test segment: two appliances and a peer on one bridge.
const (
	serviceAddr = "10.97.0.1"
	macA        = "02:00:00:97:00:0a"
	macB        = "02:00:00:97:00:0b"
)

type segment struct {
	t       *testing.T
	ctx     context.Context
	a, b, p *netns.NS
}

// newSegment builds a bridge namespace and three namespaces veth'd onto it:
// appliances a (10.97.0.2) and b (10.97.0.3), each with eth0, and the peer
// p (10.97.0.10).
func newSegment(t *testing.T) *segment {
	t.Helper()
	if err := netns.Available(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	s := &segment{t: t, ctx: ctx}
	bed := s.ns("vipbed")
	if err := bed.AddBridge(ctx, "br0", ""); err != nil {
		t.Fatal(err)
	}
	s.a, s.b, s.p = s.ns("vipa"), s.ns("vipb"), s.ns("vipp")
	for _, n := range []struct {
		ns        *netns.NS
		cidr, mac string
	}{{s.a, "10.97.0.2/24", macA}, {s.b, "10.97.0.3/24", macB}, {s.p, "10.97.0.10/24", ""}} {
		if err := bed.AddVethToBridge(ctx, "br0", n.ns, "eth0", n.cidr, n.mac); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func (s *segment) ns(prefix string) *netns.NS {
	ns, err := netns.New(s.ctx, prefix)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { ns.Close() })
	return ns
}

// vip opens the service address on eth0 of ns.
func (s *segment) vip(ns *netns.NS) *VIP {
	s.t.Helper()
	var v *VIP
	err := ns.Do(func() (err error) {
		v, err = New(Config{Interface: "eth0", Address: netip.MustParsePrefix(serviceAddr + "/24"), Interval: 50 * time.Millisecond})
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { v.Close() })
	return v
}

// has reports whether ns has the service address (on the loopback).
func (s *segment) has(ns *netns.NS) bool {
	s.t.Helper()
	out, err := ns.Run(s.ctx, "ip", "-4", "-o", "addr", "show")
	if err != nil {
		s.t.Fatal(err)
	}
	return strings.Contains(out, " "+serviceAddr+"/")
}

// reach pings the service address from the peer, which fills its
// neighbour table.
func (s *segment) reach() {
	s.t.Helper()
	if out, err := s.p.Run(s.ctx, "busybox", "ping", "-c", "1", "-W", "2", serviceAddr); err != nil {
		s.t.Fatalf("the peer cannot reach the service address: %v\n%s", err, out)
	}
}

// neigh is the peer's neighbour entry for the service address.
func (s *segment) neigh() string {
	out, err := s.p.Run(s.ctx, "ip", "neigh", "show", serviceAddr, "dev", "eth0")
	if err != nil {
		s.t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// waitNeigh waits (up to 5 s) until the peer's entry names mac.
func (s *segment) waitNeigh(mac string) {
	s.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(s.neigh(), "lladdr "+mac) {
		if time.Now().After(deadline) {
			s.t.Fatalf("the peer's neighbour entry is %q, want %s", s.neigh(), mac)
		}
		select {
		case <-s.ctx.Done():
			s.t.Fatal(s.ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestMoveUpdatesPeerNeighbour: the address moves from a to b; the peer,
// which reached it at a's MAC, sees b's MAC through the gratuitous ARP
// alone (it sends nothing in between).
func TestMoveUpdatesPeerNeighbour(t *testing.T) {
	s := newSegment(t)
	va, vb := s.vip(s.a), s.vip(s.b)
	if err := va.Acquire(s.ctx); err != nil {
		t.Fatal(err)
	}
	if !s.has(s.a) {
		t.Fatal("a does not hold the address after Acquire")
	}
	s.reach()
	s.waitNeigh(macA)
	if err := va.Release(); err != nil {
		t.Fatal(err)
	}
	if s.has(s.a) {
		t.Fatal("a still holds the address after Release")
	}
	if err := vb.Acquire(s.ctx); err != nil {
		t.Fatal(err)
	}
	s.waitNeigh(macB)
	s.reach()
}

// TestEachFormUpdatesPeer: the request form alone and the reply form alone
// each make the peer's entry follow the address.
func TestEachFormUpdatesPeer(t *testing.T) {
	s := newSegment(t)
	va, vb := s.vip(s.a), s.vip(s.b)
	if err := va.Acquire(s.ctx); err != nil {
		t.Fatal(err)
	}
	s.reach()
	s.waitNeigh(macA)
	addr := netip.MustParseAddr(serviceAddr)
	for i, step := range []struct {
		from *VIP
		op   uint16
		want string
	}{{vb, opRequest, macB}, {va, opReply, macA}, {vb, opReply, macB}, {va, opRequest, macA}} {
		if err := step.from.arp.send(garpFrame(step.op, step.from.mac, addr)); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		s.waitNeigh(step.want)
	}
}

// TestAcquireTolerant: an address already present, acquired twice, released
// twice: no error, and it ends up gone.
func TestAcquireTolerant(t *testing.T) {
	s := newSegment(t)
	if err := s.a.IP(s.ctx, "addr", "add", serviceAddr+"/32", "dev", "lo"); err != nil {
		t.Fatal(err)
	}
	// Where an older rackbootd put it: Release removes it there too.
	if err := s.a.IP(s.ctx, "addr", "add", serviceAddr+"/24", "dev", "eth0"); err != nil {
		t.Fatal(err)
	}
	v := s.vip(s.a)
	for range 2 {
		if err := v.Acquire(s.ctx); err != nil {
			t.Fatalf("Acquire with the address present: %v", err)
		}
	}
	for range 2 {
		if err := v.Release(); err != nil {
			t.Fatalf("Release: %v", err)
		}
	}
	if s.has(s.a) {
		t.Fatal("the address is still there")
	}
}

// TestHoldReleasesOnCancel: Hold keeps the address until its context ends,
// announces it, and removes it then.
func TestHoldReleasesOnCancel(t *testing.T) {
	s := newSegment(t)
	va, vb := s.vip(s.a), s.vip(s.b)
	if err := vb.Acquire(s.ctx); err != nil {
		t.Fatal(err)
	}
	s.reach()
	s.waitNeigh(macB)
	if err := vb.Release(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(s.ctx)
	done := make(chan error, 1)
	go func() { done <- va.Hold(ctx) }()
	s.waitNeigh(macA)
	if !s.has(s.a) {
		t.Fatal("a does not hold the address while Hold runs")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s.has(s.a) {
		t.Fatal("the address is still on a after Hold returned")
	}
}

// TestDeadHolderAnswersNoARP: a holds the address and dies without
// releasing it (Close, as a killed process leaves it); b takes it. Peers
// that resolve the address afresh find only b, every time: a's kernel,
// which still has the address, answers no ARP for it.
func TestDeadHolderAnswersNoARP(t *testing.T) {
	s := newSegment(t)
	va, vb := s.vip(s.a), s.vip(s.b)
	if err := va.Acquire(s.ctx); err != nil {
		t.Fatal(err)
	}
	s.reach()
	s.waitNeigh(macA)
	if err := va.Close(); err != nil {
		t.Fatal(err)
	}
	if !s.has(s.a) {
		t.Fatal("the dead holder's address is gone; the test needs it left behind")
	}
	if err := vb.Acquire(s.ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := s.p.IP(s.ctx, "neigh", "flush", "dev", "eth0"); err != nil {
			t.Fatal(err)
		}
		s.reach()
		if n := s.neigh(); !strings.Contains(n, "lladdr "+macB) {
			t.Fatalf("resolution %d: the peer's entry is %q, want only %s", i, n, macB)
		}
	}
}

// TestNotHeldNotAnswered: before Acquire and after Release nobody answers
// ARP for the address.
func TestNotHeldNotAnswered(t *testing.T) {
	s := newSegment(t)
	va := s.vip(s.a)
	if out, err := s.p.Run(s.ctx, "busybox", "ping", "-c", "1", "-W", "1", serviceAddr); err == nil {
		t.Fatalf("the address answers before anyone holds it: %s", out)
	}
	if err := va.Acquire(s.ctx); err != nil {
		t.Fatal(err)
	}
	s.reach()
	if err := va.Release(); err != nil {
		t.Fatal(err)
	}
	if err := s.p.IP(s.ctx, "neigh", "flush", "dev", "eth0"); err != nil {
		t.Fatal(err)
	}
	if out, err := s.p.Run(s.ctx, "busybox", "ping", "-c", "1", "-W", "1", serviceAddr); err == nil {
		t.Fatalf("the address answers after Release: %s", out)
	}
}
