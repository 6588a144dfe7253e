package leasefile_test

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4/nclient4"
	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/dhcp/leasefile"
)

func config() dhcp.Config {
	return dhcp.Config{
		ServerIP: netip.MustParseAddr("10.99.0.1"),
		Subnet:   netip.MustParsePrefix("10.99.0.0/24"),
		Ranges:   []dhcp.Range{{Start: netip.MustParseAddr("10.99.0.100"), End: netip.MustParseAddr("10.99.0.200")}},
	}
}

// runServer serves a Server over leases on a loopback socket and returns its
// address and a stop function.
func runServer(t *testing.T, leases dhcp.Leases) (*net.UDPAddr, func()) {
	t.Helper()
	s, err := dhcp.New(config(), leases, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, conn) }()
	return conn.LocalAddr().(*net.UDPAddr), func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		conn.Close()
	}
}

func dora(t *testing.T, server *net.UDPAddr, mac net.HardwareAddr) net.IP {
	t.Helper()
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c, err := nclient4.NewWithConn(conn, mac, nclient4.WithServerAddr(server), nclient4.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	lease, err := c.Request(ctx)
	if err != nil {
		t.Fatalf("DORA for %v: %v", mac, err)
	}
	return lease.ACK.YourIPAddr
}

// TestLeasesSurviveServerRestart: a client keeps its address across a
// restart of the server on the same data directory, and the address stays
// taken for other clients.
func TestLeasesSurviveServerRestart(t *testing.T) {
	dir := t.TempDir()
	macs := []net.HardwareAddr{{0x52, 0x54, 0, 0, 1, 1}, {0x52, 0x54, 0, 0, 1, 2}}
	lf, err := leasefile.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	addr, stop := runServer(t, lf)
	first := map[string]string{}
	for _, mac := range macs {
		first[mac.String()] = dora(t, addr, mac).String()
	}
	stop()
	lf.Close()

	lf2, err := leasefile.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lf2.Close()
	addr, stop = runServer(t, lf2)
	defer stop()
	// A new client first, so a forgetful server would hand it an old address.
	newcomer := dora(t, addr, net.HardwareAddr{0x52, 0x54, 0, 0, 1, 3}).String()
	for _, mac := range macs {
		if got := dora(t, addr, mac).String(); got != first[mac.String()] {
			t.Errorf("%v got %s after restart, had %s", mac, got, first[mac.String()])
		}
		if newcomer == first[mac.String()] {
			t.Errorf("newcomer got %s, still leased to %v", newcomer, mac)
		}
	}
}
