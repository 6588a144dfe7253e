package dhcp

import (
	"context"
	"encoding/binary"
	"net"
	"net/netip"
	"sync/atomic"
	"testing"

	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
)

func benchConfig() Config {
	cfg := testConfig()
	cfg.Subnet = netip.MustParsePrefix("10.96.0.0/12")
	cfg.Ranges = []Range{{netip.MustParseAddr("10.97.0.0"), netip.MustParseAddr("10.100.255.255")}}
	return cfg
}

func benchMAC(i uint64) net.HardwareAddr {
	m := make(net.HardwareAddr, 8)
	binary.BigEndian.PutUint64(m, i)
	m[0], m[1] = 0x52, 0x54
	return m[:6:6]
}

// BenchmarkHandleDORA measures DISCOVER+REQUEST handling (decode, handle,
// encode) for distinct clients over memory leases.
func BenchmarkHandleDORA(b *testing.B) {
	s, _ := newTestServer(b, benchConfig(), nil)
	var n atomic.Uint64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			benchDORA(b, s, benchMAC(n.Add(1)<<8))
		}
	})
}

// BenchmarkHandlePXEOffer measures a PXE DISCOVER in proxy mode.
func BenchmarkHandlePXEOffer(b *testing.B) {
	cfg := testConfig()
	cfg.Mode = ModeProxy
	s, _ := newTestServer(b, cfg, nil)
	raw := packet(b, dhcpv4.MessageTypeDiscover, macDynamic, withPXE(iana.EFI_X86_64, "PXEClient:Arch:00007:UNDI:003016")...).ToBytes()
	b.ReportAllocs()
	for b.Loop() {
		req, err := dhcpv4.FromBytes(raw)
		if err != nil {
			b.Fatal(err)
		}
		r, err := s.handle(context.Background(), req, false)
		if err != nil || r == nil {
			b.Fatal(r, err)
		}
		_ = r.ToBytes()
	}
}

func benchDORA(b *testing.B, s *Server, mac net.HardwareAddr) {
	d := packet(b, dhcpv4.MessageTypeDiscover, mac).ToBytes()
	req, err := dhcpv4.FromBytes(d)
	if err != nil {
		b.Fatal(err)
	}
	offer, err := s.handle(context.Background(), req, false)
	if err != nil || offer == nil {
		b.Fatal(offer, err)
	}
	_ = offer.ToBytes()
	r := packet(b, dhcpv4.MessageTypeRequest, mac, dhcpv4.WithOption(dhcpv4.OptRequestedIPAddress(offer.YourIPAddr)), withServerID("10.99.0.1")).ToBytes()
	req, err = dhcpv4.FromBytes(r)
	if err != nil {
		b.Fatal(err)
	}
	ack, err := s.handle(context.Background(), req, false)
	if err != nil || ack == nil || ack.MessageType() != dhcpv4.MessageTypeAck {
		b.Fatal(ack, err)
	}
	_ = ack.ToBytes()
}
