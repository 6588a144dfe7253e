package dhcp_test

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/dhcp"

	"github.com/rackboot/rackboot/testbed/netns"
)

// TestRelayWithDnsmasq: a client on another segment gets its lease through
// dnsmasq acting as a DHCP relay. The server (10.98.0.1) serves subnet
// 10.99.0.0/24, where the relay's giaddr 10.99.0.1 lives, and answers the
// relay on port 67.
func TestRelayWithDnsmasq(t *testing.T) {
	l := newLabOn(t, "10.98.0.1/24")
	cfg := labConfig()
	cfg.ServerIP = netip.MustParseAddr("10.98.0.1")
	s, leases := l.serve(cfg)

	relay := l.client("relay", "52:54:00:00:e0:02", "10.98.0.2/24")
	if err := relay.AddBridge(l.ctx, "br1", "10.99.0.1/24"); err != nil {
		t.Fatal(err)
	}
	if err := l.rack.IP(l.ctx, "route", "add", "10.99.0.0/24", "via", "10.98.0.2"); err != nil {
		t.Fatal(err)
	}
	l.run(relay, "dnsmasq-relay", "dnsmasq", "--no-daemon", "--port=0", "--conf-file=/dev/null",
		"--interface=br1", "--dhcp-relay=10.99.0.1,10.98.0.1",
		"--pid-file="+filepath.Join(l.dir, "relay.pid"), "--user=root", "--log-dhcp", "--log-facility=-")

	cli, err := netns.New(l.ctx, "relaycl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	if err := relay.AddVethToBridge(l.ctx, "br1", cli, "eth0", "", "52:54:00:00:00:01"); err != nil {
		t.Fatal(err)
	}
	script, out := l.script("udhcpc-relay", udhcpcScript)
	if o, err := cli.Run(l.ctx, "busybox", "udhcpc", "-f", "-q", "-n", "-i", "eth0", "-s", script, "-t", "5", "-T", "2"); err != nil {
		t.Fatalf("udhcpc behind the relay: %v\n%s", err, o)
	}
	ev := l.waitEvent(out, 0, "bound")
	if ev["ip"] != "10.99.0.11" || ev["hostname"] != "master-0" || ev["serverid"] != "10.98.0.1" || ev["router"] != "10.99.0.1" {
		t.Errorf("relayed client bound %v, want its reservation 10.99.0.11 from 10.98.0.1", ev)
	}
	if lease, ok := leases.ByIP(netip.MustParseAddr("10.99.0.11")); !ok || lease.Hostname != "master-0" {
		t.Errorf("lease store: %+v %v", lease, ok)
	}
	if st := s.Stats(); st.Acks == 0 {
		t.Errorf("stats %+v", st)
	}
}

// run starts a daemon inside ns until the test ends, its output in
// name.log (printed when the test fails).
func (l *lab) run(ns *netns.NS, name string, prog string, args ...string) {
	l.t.Helper()
	logf, err := os.Create(filepath.Join(l.dir, name+".log"))
	if err != nil {
		l.t.Fatal(err)
	}
	cmd := ns.Command(l.ctx, prog, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		l.t.Fatal(err)
	}
	l.t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
		if l.t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			l.t.Logf("%s log:\n%s", name, b)
		}
	})
}

// TestListenAndServeMissingInterface: a missing interface is an error that
// names it, not a server silently listening elsewhere.
func TestListenAndServeMissingInterface(t *testing.T) {
	l := newLab(t)
	s, err := dhcp.New(labConfig(), dhcp.NewMemoryLeases(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = l.rack.Do(func() error { return s.ListenAndServe(l.ctx, []string{"br0", "nosuch0"}) })
	if err == nil || !strings.Contains(err.Error(), "nosuch0") {
		t.Fatalf("ListenAndServe with a missing interface: %v", err)
	}
}
