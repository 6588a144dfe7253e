package dhcp_test

import (
	"net"
	"net/netip"
	"path/filepath"
	"testing"

	"github.com/insomniacslk/dhcp/dhcpv4"

	"github.com/rackboot/rackboot/dhcp"
)

// dnsmasq runs dnsmasq handing out 10.99.0.50-60 from its own namespace on
// the bridge (10.99.0.2), until the test ends.
func (l *lab) dnsmasq() {
	l.t.Helper()
	ns := l.client("dnsm", "52:54:00:00:d0:02", "10.99.0.2/24")
	l.run(ns, "dnsmasq", "dnsmasq", "--no-daemon", "--port=0", "--conf-file=/dev/null",
		"--interface=eth0", "--bind-interfaces", "--dhcp-range=10.99.0.50,10.99.0.60,255.255.255.0,1h",
		"--dhcp-leasefile="+filepath.Join(l.dir, "dnsmasq.leases"), "--pid-file="+filepath.Join(l.dir, "dnsmasq.pid"),
		"--user=root", "--log-dhcp", "--no-ping", "--log-facility=-", "--dhcp-authoritative")
}

func proxyConfig() dhcp.Config {
	c := labConfig()
	c.Mode = dhcp.ModeProxy
	return c
}

// TestProxyModeWithDnsmasq: with dnsmasq handing out addresses on the same
// segment, rackboot in proxy mode stays silent for plain clients, offers a
// PXE client boot information only (next to dnsmasq's address offer), and
// answers a UEFI client's REQUEST on port 4011 by unicast.
func TestProxyModeWithDnsmasq(t *testing.T) {
	l := newLab(t)
	l.dnsmasq()
	l.serve(proxyConfig())
	ns := l.client("pxecl", "52:54:00:00:00:55", "")
	capture := l.capture(ns)

	// A plain client: dnsmasq's address, nothing from us.
	script, out := l.script("udhcpc-plain", udhcpcScript)
	if o, err := ns.Run(l.ctx, "busybox", "udhcpc", "-f", "-q", "-n", "-i", "eth0", "-s", script, "-t", "5", "-T", "2"); err != nil {
		t.Fatalf("udhcpc: %v\n%s", err, o)
	}
	bound := l.waitEvent(out, 0, "bound")
	if !inDnsmasqRange(bound["ip"]) || bound["serverid"] != "10.99.0.2" || bound["boot_file"] != "" {
		t.Fatalf("plain client bound %v, want a dnsmasq address and no boot file", bound)
	}
	for _, p := range capture.drain() {
		if p.from == "10.99.0.1" {
			t.Errorf("proxy answered a non-PXE client: %v", p.pkt.Summary())
		}
	}

	// A UEFI client that has its address asks the boot server on 4011.
	ack := l.request4011(ns, bound["ip"])
	checkProxyBoot(t, ack, "ipxe.efi")
	if ack.MessageType() != dhcpv4.MessageTypeAck || !ack.ClientIPAddr.Equal(net.ParseIP(bound["ip"])) {
		t.Errorf("port 4011 reply: %v", ack.Summary())
	}

	// A PXE-ish client: dnsmasq offers an address, we offer boot info.
	// -B asks for broadcast replies, so that the capture sees dnsmasq's.
	// udhcpc is no PXE client: it takes whichever offer comes first, so
	// its own outcome is not asserted, only what was offered.
	script, _ = l.script("udhcpc-pxe", udhcpcScript)
	if o, err := ns.Run(l.ctx, "busybox", "udhcpc", "-f", "-q", "-n", "-B", "-i", "eth0", "-s", script, "-t", "5", "-T", "2",
		"-V", "PXEClient:Arch:00000:UNDI:002001", "-x", "0x5d:0000"); err != nil {
		t.Fatalf("udhcpc: %v\n%s", err, o)
	}
	ours := capture.await(t, func(p captured) bool { return p.from == "10.99.0.1" && p.pkt.MessageType() == dhcpv4.MessageTypeOffer })
	theirs := capture.await(t, func(p captured) bool { return p.from == "10.99.0.2" && p.pkt.MessageType() == dhcpv4.MessageTypeOffer })
	checkProxyBoot(t, ours.pkt, "undionly.kpxe")
	if ours.pkt.TransactionID != theirs.pkt.TransactionID || !inDnsmasqRange(theirs.pkt.YourIPAddr.String()) {
		t.Errorf("dnsmasq offered %v for xid %v; our offer was for %v", theirs.pkt.YourIPAddr, theirs.pkt.TransactionID, ours.pkt.TransactionID)
	}

}

func inDnsmasqRange(ip string) bool {
	a, err := netip.ParseAddr(ip)
	return err == nil && (dhcp.Range{Start: netip.MustParseAddr("10.99.0.50"), End: netip.MustParseAddr("10.99.0.60")}).Contains(a)
}

// checkProxyBoot asserts a proxy reply: no address, option 60 PXEClient,
// option 43 with sub-option 6 = 8, option 54 and siaddr = us, the boot file.
func checkProxyBoot(t *testing.T, p *dhcpv4.DHCPv4, file string) {
	t.Helper()
	switch {
	case !p.YourIPAddr.IsUnspecified():
		t.Errorf("proxy reply hands out %v", p.YourIPAddr)
	case p.ClassIdentifier() != "PXEClient":
		t.Errorf("option 60 = %q", p.ClassIdentifier())
	case string(p.Options.Get(dhcpv4.OptionVendorSpecificInformation)) != "\x06\x01\x08\xff":
		t.Errorf("option 43 = % x", p.Options.Get(dhcpv4.OptionVendorSpecificInformation))
	case !p.ServerIdentifier().Equal(net.ParseIP("10.99.0.1")) || !p.ServerIPAddr.Equal(net.ParseIP("10.99.0.1")):
		t.Errorf("server id %v, siaddr %v", p.ServerIdentifier(), p.ServerIPAddr)
	case p.BootFileName != file:
		t.Errorf("boot file %q, want %q", p.BootFileName, file)
	}
}
