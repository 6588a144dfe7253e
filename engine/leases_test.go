package engine_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/engine"
)

// Leases keeps the replacement rules of dhcp.Leases.Commit.
func TestLeasesRules(t *testing.T) {
	st := newStore()
	l := engine.NewLeases(st)
	ctx := context.Background()
	mac := net.HardwareAddr{0x52, 0x54, 0, 0, 0, 1}
	ip1, ip2 := netip.MustParseAddr("10.0.0.10"), netip.MustParseAddr("10.0.0.11")
	exp := t0.Add(time.Hour)
	if err := l.Commit(ctx, dhcp.Lease{IP: ip1, MAC: mac, Hostname: "h1", Expires: exp}); err != nil {
		t.Fatal(err)
	}
	if got, ok := l.ByIP(ip1); !ok || got.Hostname != "h1" || !got.Expires.Equal(exp) || got.MAC.String() != mac.String() {
		t.Errorf("ByIP = %+v %v", got, ok)
	}
	// The client moves: its old address is freed.
	if err := l.Commit(ctx, dhcp.Lease{IP: ip2, MAC: mac, Expires: exp}); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.ByIP(ip1); ok {
		t.Error("old address still leased")
	}
	if got, ok := l.ByMAC(mac); !ok || got.IP != ip2 {
		t.Errorf("ByMAC = %v %v", got, ok)
	}
	// A declined address binds no MAC.
	if err := l.Commit(ctx, dhcp.Lease{IP: ip1, Expires: exp}); err != nil {
		t.Fatal(err)
	}
	if got := slices.Collect(l.All()); len(got) != 2 {
		t.Errorf("All = %v", got)
	}
	if err := l.Release(ctx, ip2); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx, ip2); err != nil {
		t.Errorf("releasing a free address: %v", err)
	}
	if _, ok := l.ByMAC(mac); ok {
		t.Error("released lease still found by MAC")
	}
	err := l.Commit(ctx, dhcp.Lease{IP: netip.MustParseAddr("::1"), MAC: mac})
	if !errors.Is(err, dhcp.ErrLeaseStore) || !errors.Is(err, engine.ErrInvalid) {
		t.Errorf("IPv6 lease: %v", err)
	}
}

// A canceled caller gets its context's error.
func TestLeasesCommitCanceled(t *testing.T) {
	l := engine.NewLeases(newStore())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := l.Commit(ctx, dhcp.Lease{IP: netip.MustParseAddr("10.0.0.1"), MAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}})
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}
