package dhcp

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
)

// dora runs DISCOVER then REQUEST for mac and returns the ACK.
func dora(t *testing.T, s *Server, mac net.HardwareAddr, mods ...dhcpv4.Modifier) *dhcpv4.DHCPv4 {
	t.Helper()
	offer := mustHandle(t, s, packet(t, dhcpv4.MessageTypeDiscover, mac, mods...), false)
	if offer == nil || offer.MessageType() != dhcpv4.MessageTypeOffer {
		t.Fatalf("DISCOVER from %v: got %v, want an OFFER", mac, offer)
	}
	req := append([]dhcpv4.Modifier{withRequested(offer.YourIPAddr.String()), withServerID("10.99.0.1")}, mods...)
	ack := mustHandle(t, s, packet(t, dhcpv4.MessageTypeRequest, mac, req...), false)
	if ack == nil || ack.MessageType() != dhcpv4.MessageTypeAck {
		t.Fatalf("REQUEST from %v: got %v, want an ACK", mac, ack)
	}
	if !ack.YourIPAddr.Equal(offer.YourIPAddr) {
		t.Fatalf("ACK for %v, offered %v", ack.YourIPAddr, offer.YourIPAddr)
	}
	return ack
}

func TestFullModeLeases(t *testing.T) {
	s, leases := newTestServer(t, testConfig(), nil)
	ack := dora(t, s, macReserved)
	if got := ack.YourIPAddr.String(); got != "10.99.0.11" {
		t.Errorf("reserved MAC got %s, want 10.99.0.11", got)
	}
	if got := ack.HostName(); got != "master-0" {
		t.Errorf("reserved MAC got hostname %q, want master-0", got)
	}
	ack = dora(t, s, macDynamic)
	ip := netip.MustParseAddr(ack.YourIPAddr.String())
	if !testConfig().Ranges[0].Contains(ip) {
		t.Errorf("dynamic MAC got %v, outside the range", ip)
	}
	if l, ok := leases.ByMAC(macDynamic); !ok || l.IP != ip || !l.Expires.Equal(fixedNow.Add(DefaultLeaseTime)) {
		t.Errorf("lease store holds %+v, %v; want %v until %v", l, ok, ip, fixedNow.Add(DefaultLeaseTime))
	}
	if ack.BootFileName != "" || ack.Options.Has(dhcpv4.OptionBootfileName) {
		t.Errorf("non-PXE client got a boot file %q", ack.BootFileName)
	}

	// A second DORA from the same client keeps its address.
	if again := dora(t, s, macDynamic); !again.YourIPAddr.Equal(ack.YourIPAddr) {
		t.Errorf("second DORA gave %v, first %v", again.YourIPAddr, ack.YourIPAddr)
	}
	// Renew: unicast REQUEST with ciaddr, no server id.
	renew := mustHandle(t, s, packet(t, dhcpv4.MessageTypeRequest, macDynamic, dhcpv4.WithClientIP(ack.YourIPAddr)), false)
	if renew.MessageType() != dhcpv4.MessageTypeAck || !renew.YourIPAddr.Equal(ack.YourIPAddr) || !renew.ClientIPAddr.Equal(ack.YourIPAddr) {
		t.Errorf("renew: got %v yiaddr %v ciaddr %v", renew.MessageType(), renew.YourIPAddr, renew.ClientIPAddr)
	}
	// Another client cannot take that address.
	nak := mustHandle(t, s, packet(t, dhcpv4.MessageTypeRequest, macOther, withRequested(ack.YourIPAddr.String())), false)
	if nak.MessageType() != dhcpv4.MessageTypeNak {
		t.Errorf("INIT-REBOOT for a leased address: got %v, want NAK", nak.MessageType())
	}
	// Release frees it for someone else.
	if r := mustHandle(t, s, packet(t, dhcpv4.MessageTypeRelease, macDynamic, dhcpv4.WithClientIP(ack.YourIPAddr)), false); r != nil {
		t.Errorf("RELEASE got a reply %v", r)
	}
	if _, ok := leases.ByIP(ip); ok {
		t.Errorf("lease on %v still there after RELEASE", ip)
	}
	if got := mustHandle(t, s, packet(t, dhcpv4.MessageTypeRequest, macOther, withRequested(ip.String())), false); got.MessageType() != dhcpv4.MessageTypeAck {
		t.Errorf("released address not grantable: got %v", got.MessageType())
	}
	st := s.Stats()
	if st.Releases != 1 || st.Naks != 1 {
		t.Errorf("stats %+v: want 1 release, 1 NAK", st)
	}
}

// A client retransmitting its DISCOVER (no answer seen yet, or a new
// leader after a failover) is offered the same address each time, and the
// pool keeps its other addresses for other clients.
func TestRetransmittedDiscoverSameOffer(t *testing.T) {
	cfg := testConfig()
	cfg.Ranges = []Range{{netip.MustParseAddr("10.99.0.100"), netip.MustParseAddr("10.99.0.101")}}
	s, _ := newTestServer(t, cfg, nil)
	first := mustHandle(t, s, packet(t, dhcpv4.MessageTypeDiscover, macDynamic), false)
	for range 5 {
		again := mustHandle(t, s, packet(t, dhcpv4.MessageTypeDiscover, macDynamic), false)
		if !again.YourIPAddr.Equal(first.YourIPAddr) {
			t.Fatalf("retransmitted DISCOVER offered %v, first offer %v", again.YourIPAddr, first.YourIPAddr)
		}
	}
	if ack := dora(t, s, macOther); ack.YourIPAddr.Equal(first.YourIPAddr) {
		t.Fatalf("another client got the address held for the first: %v", ack.YourIPAddr)
	}
}

func TestRequestCases(t *testing.T) {
	cases := []struct {
		name string
		mac  net.HardwareAddr
		mods []dhcpv4.Modifier
		want dhcpv4.MessageType // MessageTypeNone: no reply
	}{
		{"other server chosen", macDynamic, []dhcpv4.Modifier{withRequested("10.99.0.150"), withServerID("10.99.0.2")}, dhcpv4.MessageTypeNone},
		{"free address in range", macDynamic, []dhcpv4.Modifier{withRequested("10.99.0.150")}, dhcpv4.MessageTypeAck},
		{"address outside range", macDynamic, []dhcpv4.Modifier{withRequested("10.99.0.50")}, dhcpv4.MessageTypeNak},
		{"address outside subnet", macDynamic, []dhcpv4.Modifier{withRequested("192.168.1.5")}, dhcpv4.MessageTypeNak},
		{"another MAC's reservation", macDynamic, []dhcpv4.Modifier{withRequested("10.99.0.11")}, dhcpv4.MessageTypeNak},
		{"reserved MAC asks for its address", macReserved, []dhcpv4.Modifier{withRequested("10.99.0.11")}, dhcpv4.MessageTypeAck},
		{"reserved MAC asks for another", macReserved, []dhcpv4.Modifier{withRequested("10.99.0.150")}, dhcpv4.MessageTypeNak},
		{"the server's own address", macDynamic, []dhcpv4.Modifier{withRequested("10.99.0.1")}, dhcpv4.MessageTypeNak},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTestServer(t, testConfig(), nil)
			r := mustHandle(t, s, packet(t, dhcpv4.MessageTypeRequest, tc.mac, tc.mods...), false)
			got := dhcpv4.MessageTypeNone
			if r != nil {
				got = r.MessageType()
			}
			if got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRequestWithoutAddressIsMalformed(t *testing.T) {
	s, _ := newTestServer(t, testConfig(), nil)
	_, err := s.handle(context.Background(), packet(t, dhcpv4.MessageTypeRequest, macDynamic), false)
	if !errors.Is(err, ErrMalformed) {
		t.Errorf("err = %v, want ErrMalformed", err)
	}
}

func TestDeclineBlocksAddress(t *testing.T) {
	cfg := testConfig()
	cfg.Ranges = []Range{{netip.MustParseAddr("10.99.0.100"), netip.MustParseAddr("10.99.0.102")}}
	s, leases := newTestServer(t, cfg, nil)
	ack := dora(t, s, macDynamic)
	if r := mustHandle(t, s, packet(t, dhcpv4.MessageTypeDecline, macDynamic, withRequested(ack.YourIPAddr.String()), withServerID("10.99.0.1")), false); r != nil {
		t.Fatalf("DECLINE got a reply")
	}
	l, ok := leases.ByIP(netip.MustParseAddr(ack.YourIPAddr.String()))
	if !ok || !l.Declined() || !l.Expires.Equal(fixedNow.Add(DefaultDeclineTime)) {
		t.Fatalf("declined address holds %+v, %v", l, ok)
	}
	// Both the declining client and another get the other address.
	for _, mac := range []net.HardwareAddr{macDynamic, macOther} {
		offer := mustHandle(t, s, packet(t, dhcpv4.MessageTypeDiscover, mac), false)
		if offer.YourIPAddr.Equal(ack.YourIPAddr) {
			t.Errorf("%v was offered the declined address %v", mac, offer.YourIPAddr)
		}
	}
	// Once the block expires, the address is free again.
	s.now = func() time.Time { return fixedNow.Add(DefaultDeclineTime + time.Minute + offerHold) }
	free := mustHandle(t, s, packet(t, dhcpv4.MessageTypeRequest, macOther, withRequested(ack.YourIPAddr.String())), false)
	if free.MessageType() != dhcpv4.MessageTypeAck {
		t.Errorf("after the decline time: got %v, want ACK", free.MessageType())
	}
}

func TestExhaustion(t *testing.T) {
	cfg := testConfig()
	cfg.Ranges = []Range{{netip.MustParseAddr("10.99.0.100"), netip.MustParseAddr("10.99.0.101")}}
	s, _ := newTestServer(t, cfg, nil)
	dora(t, s, macDynamic)
	dora(t, s, macOther)
	third := mustMAC("52:54:00:00:00:44")
	r, err := s.handle(context.Background(), packet(t, dhcpv4.MessageTypeDiscover, third), false)
	if r != nil || !errors.Is(err, ErrExhausted) {
		t.Fatalf("third client: reply %v, err %v; want no reply and ErrExhausted", r, err)
	}
	// The reserved MAC still gets its address.
	if ack := dora(t, s, macReserved); ack.YourIPAddr.String() != "10.99.0.11" {
		t.Errorf("reserved MAC got %v", ack.YourIPAddr)
	}
	// A release makes room at once.
	mustHandle(t, s, packet(t, dhcpv4.MessageTypeRelease, macOther, dhcpv4.WithClientIP(net.ParseIP("10.99.0.101"))), false)
	if ack := dora(t, s, third); ack.YourIPAddr.String() != "10.99.0.101" {
		t.Errorf("after a release the third client got %v, want 10.99.0.101", ack.YourIPAddr)
	}
	// An outstanding offer holds its address against other clients.
	s2, _ := newTestServer(t, cfg, nil)
	mustHandle(t, s2, packet(t, dhcpv4.MessageTypeDiscover, macDynamic), false)
	mustHandle(t, s2, packet(t, dhcpv4.MessageTypeDiscover, macOther), false)
	if _, err := s2.handle(context.Background(), packet(t, dhcpv4.MessageTypeDiscover, third), false); !errors.Is(err, ErrExhausted) {
		t.Errorf("offers did not hold their addresses: err %v", err)
	}
}

func TestRelay(t *testing.T) {
	s, _ := newTestServer(t, testConfig(), nil)
	outside := dhcpv4.WithGatewayIP(net.ParseIP("192.168.7.1"))
	r, err := s.handle(context.Background(), packet(t, dhcpv4.MessageTypeDiscover, macDynamic, outside), false)
	if r != nil || !errors.Is(err, ErrRelay) {
		t.Errorf("relay outside subnet: reply %v, err %v; want ErrRelay", r, err)
	}
	inside := dhcpv4.WithGatewayIP(net.ParseIP("10.99.0.254"))
	req := packet(t, dhcpv4.MessageTypeDiscover, macDynamic, inside)
	r = mustHandle(t, s, req, false)
	to := replyAddr(req, r, &net.UDPAddr{IP: net.ParseIP("10.99.0.254"), Port: 67})
	if to.String() != "10.99.0.254:67" {
		t.Errorf("relayed reply goes to %v, want 10.99.0.254:67", to)
	}
}

func TestReplyAddr(t *testing.T) {
	client := &net.UDPAddr{IP: net.IPv4zero, Port: 68}
	cases := []struct {
		name string
		mods []dhcpv4.Modifier
		mt   dhcpv4.MessageType
		from *net.UDPAddr
		want string
	}{
		{"no address: broadcast", nil, dhcpv4.MessageTypeOffer, client, "255.255.255.255:68"},
		{"ciaddr: unicast", []dhcpv4.Modifier{dhcpv4.WithClientIP(net.ParseIP("10.99.0.150"))}, dhcpv4.MessageTypeAck, &net.UDPAddr{IP: net.ParseIP("10.99.0.150"), Port: 68}, "10.99.0.150:68"},
		{"NAK: broadcast", []dhcpv4.Modifier{dhcpv4.WithClientIP(net.ParseIP("10.99.0.150"))}, dhcpv4.MessageTypeNak, client, "255.255.255.255:68"},
		{"port 4011 client: its source", []dhcpv4.Modifier{dhcpv4.WithClientIP(net.ParseIP("192.168.1.50"))}, dhcpv4.MessageTypeAck, &net.UDPAddr{IP: net.ParseIP("192.168.1.50"), Port: 4011}, "192.168.1.50:4011"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := packet(t, dhcpv4.MessageTypeRequest, macDynamic, tc.mods...)
			reply := packet(t, tc.mt, macDynamic)
			if got := replyAddr(req, reply, tc.from).String(); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestBooterAndModes(t *testing.T) {
	bios := withPXE(iana.INTEL_X86PC, "PXEClient:Arch:00000:UNDI:002001")
	cases := []struct {
		name     string
		mode     Mode
		booter   Booter
		mods     []dhcpv4.Modifier
		reply    bool
		bootfile string
	}{
		{"full, not bootable: plain lease", ModeFull, BootNone{}, bios, true, ""},
		{"full, bootable", ModeFull, BootAll{}, bios, true, "undionly.kpxe"},
		{"full, IA32 has no bootfile", ModeFull, BootAll{}, withPXE(iana.EFI_IA32, "PXEClient:Arch:00006"), true, ""},
		{"proxy, non-PXE: silence", ModeProxy, BootAll{}, nil, false, ""},
		{"proxy, not bootable: silence", ModeProxy, BootNone{}, bios, false, ""},
		{"proxy, bootable", ModeProxy, BootAll{}, bios, true, "undionly.kpxe"},
		{"arch from vendor class only", ModeProxy, BootAll{}, []dhcpv4.Modifier{dhcpv4.WithOption(dhcpv4.OptClassIdentifier("PXEClient:Arch:00011:UNDI:003000"))}, true, "snp.efi"},
		{"short GUID tolerated", ModeProxy, BootAll{}, append(withPXE(iana.EFI_X86_64, "PXEClient"), dhcpv4.WithGeneric(dhcpv4.OptionClientMachineIdentifier, []byte{0, 1})), true, "ipxe.efi"},
		{"short arch tolerated", ModeProxy, BootAll{}, []dhcpv4.Modifier{dhcpv4.WithOption(dhcpv4.OptClassIdentifier("PXEClient")), dhcpv4.WithGeneric(dhcpv4.OptionClientSystemArchitectureType, []byte{7})}, true, "undionly.kpxe"},
		{"iPXE by option 175 only", ModeProxy, BootAll{}, []dhcpv4.Modifier{dhcpv4.WithGeneric(dhcpv4.GenericOptionCode(175), []byte{1})}, true, "http://10.99.0.1:8080/boot/52-54-00-00-00-42/script.ipxe"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Mode = tc.mode
			s, _ := newTestServer(t, cfg, tc.booter)
			r := mustHandle(t, s, packet(t, dhcpv4.MessageTypeDiscover, macDynamic, tc.mods...), false)
			if (r != nil) != tc.reply {
				t.Fatalf("reply %v, want reply: %v", r, tc.reply)
			}
			if r == nil {
				return
			}
			if r.BootFileName != tc.bootfile {
				t.Errorf("bootfile %q, want %q", r.BootFileName, tc.bootfile)
			}
			if tc.mode == ModeProxy && !r.YourIPAddr.IsUnspecified() {
				t.Errorf("proxy reply carries yiaddr %v", r.YourIPAddr)
			}
		})
	}
}

func TestProxyRequests(t *testing.T) {
	cfg := testConfig()
	cfg.Mode = ModeProxy
	s, _ := newTestServer(t, cfg, nil)
	pxe := withPXE(iana.EFI_X86_64, "PXEClient:Arch:00007:UNDI:003016")
	// REQUEST on 67 to the other DHCP server: silence.
	if r := mustHandle(t, s, packet(t, dhcpv4.MessageTypeRequest, macDynamic, append(pxe, withServerID("10.99.0.2"), withRequested("10.99.0.77"))...), false); r != nil {
		t.Errorf("proxy answered a REQUEST meant for another server")
	}
	// REQUEST on 67 addressed to us: ACK with boot info.
	r := mustHandle(t, s, packet(t, dhcpv4.MessageTypeRequest, macDynamic, append(pxe, withServerID("10.99.0.1"))...), false)
	if r == nil || r.MessageType() != dhcpv4.MessageTypeAck || r.BootFileName != "ipxe.efi" {
		t.Errorf("proxy REQUEST to us: got %v", r)
	}
	// DISCOVER on 4011: silence; non-PXE REQUEST on 4011: silence.
	if r := mustHandle(t, s, packet(t, dhcpv4.MessageTypeDiscover, macDynamic, pxe...), true); r != nil {
		t.Errorf("answered a DISCOVER on 4011")
	}
	if r := mustHandle(t, s, packet(t, dhcpv4.MessageTypeRequest, macDynamic, dhcpv4.WithClientIP(net.ParseIP("10.99.0.77"))), true); r != nil {
		t.Errorf("answered a non-PXE REQUEST on 4011")
	}
}

func TestMalformedRequests(t *testing.T) {
	s, _ := newTestServer(t, testConfig(), nil)
	reply := packet(t, dhcpv4.MessageTypeDiscover, macDynamic)
	reply.OpCode = dhcpv4.OpcodeBootReply
	noType := packet(t, dhcpv4.MessageTypeDiscover, macDynamic)
	noType.Options.Del(dhcpv4.OptionDHCPMessageType)
	shortMAC := packet(t, dhcpv4.MessageTypeDiscover, net.HardwareAddr{1, 2, 3})
	for name, req := range map[string]*dhcpv4.DHCPv4{"reply opcode": reply, "no type": noType, "short chaddr": shortMAC} {
		if r, err := s.handle(context.Background(), req, false); r != nil || !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: reply %v err %v, want ErrMalformed", name, r, err)
		}
	}
}

func TestReloadKeepsLeases(t *testing.T) {
	s, leases := newTestServer(t, testConfig(), nil)
	ack := dora(t, s, macDynamic)
	cfg := testConfig()
	cfg.Reservations = append(cfg.Reservations, Reservation{MAC: macOther, IP: netip.MustParseAddr("10.99.0.12"), Hostname: "worker-0"})
	if err := s.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	if l, ok := leases.ByMAC(macDynamic); !ok || l.IP.String() != ack.YourIPAddr.String() {
		t.Errorf("lease lost over reload: %+v %v", l, ok)
	}
	if r := dora(t, s, macOther); r.YourIPAddr.String() != "10.99.0.12" || r.HostName() != "worker-0" {
		t.Errorf("new reservation: got %v %q", r.YourIPAddr, r.HostName())
	}
	bad := testConfig()
	bad.Reservations[0].Hostname = "evil;shell"
	if err := s.Reload(bad); !errors.Is(err, ErrConfig) {
		t.Errorf("bad reload: err %v, want ErrConfig", err)
	}
	if r := dora(t, s, macReserved); r.HostName() != "master-0" {
		t.Errorf("bad reload changed the running config: hostname %q", r.HostName())
	}
}
