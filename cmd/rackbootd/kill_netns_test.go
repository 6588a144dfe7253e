package main

import (
	"context"
	"net"
	"net/netip"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/engine"
)

// TestDHCPLeaseSurvivesKill: a lease ACKed by the daemon is in its raft
// store after kill -9, and the restarted daemon still honours it.
func TestDHCPLeaseSurvivesKill(t *testing.T) {
	macs := []string{"52:54:00:00:00:02", "52:54:00:00:00:04"}
	tb := newDHCPTestbed(t, macs...)
	d := newTestDaemon(t, "10.99.0.1:8080", "")
	d.writeConfig(dhcpConfigText(""))
	prefix := []string{"ip", "netns", "exec", tb.server.Name}
	d.start(prefix)
	d.waitNote("READY=1")
	if got := tb.lease(0); got != "ip=10.99.0.100 hostname=" {
		t.Fatalf("dynamic MAC: %s", got)
	}
	d.signal(syscall.SIGKILL)
	select {
	case err := <-d.exited:
		d.exited <- err
	case <-time.After(waitLimit):
		t.Fatal("rackbootd did not die")
	}

	// The store as the killed daemon left it.
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	st, err := cluster.Open(ctx, cluster.Config{DataDir: filepath.Join(d.dir, "state")})
	if err != nil {
		t.Fatal(err)
	}
	mac, _ := net.ParseMAC(macs[0])
	l, ok := engine.NewLeases(st).ByMAC(mac)
	st.Close()
	if !ok || l.IP != netip.MustParseAddr("10.99.0.100") {
		t.Fatalf("acknowledged lease after kill -9: %+v %v", l, ok)
	}

	d.start(prefix)
	d.waitNote("READY=1")
	if got := tb.lease(1); got != "ip=10.99.0.101 hostname=" {
		t.Errorf("a new MAC after the restart got %s; 10.99.0.100 is still leased", got)
	}
	if got := tb.lease(0); got != "ip=10.99.0.100 hostname=" {
		t.Errorf("the lease was lost across kill -9: %s", got)
	}
	d.stop()
}
