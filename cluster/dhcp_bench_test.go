package cluster

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/insomniacslk/dhcp/dhcpv4"

	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/dhcp/leasefile"
	"github.com/rackboot/rackboot/engine"
)

// BenchmarkDORARaft measures full DHCP exchanges over loopback UDP against
// a dhcp.Server whose leases are engine.Leases on a raft Store.
func BenchmarkDORARaft(b *testing.B) {
	s, err := Open(context.Background(), testConfig(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	before := s.Stats()
	benchDORA(b, engine.NewLeases(s))
	if cmds := s.Stats().Commands - before.Commands; cmds > 0 {
		b.ReportMetric(float64(b.N)/float64(cmds), "leases/command")
	}
}

// BenchmarkDORALeaseFile is the same over the lease log rackbootd used
// before the raft store, for comparison.
func BenchmarkDORALeaseFile(b *testing.B) {
	lf, err := leasefile.Open(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer lf.Close()
	benchDORA(b, lf)
}

func benchDORA(b *testing.B, leases dhcp.Leases) {
	cfg := dhcp.Config{
		Mode:      dhcp.ModeFull,
		ServerIP:  netip.MustParseAddr("10.96.0.1"),
		Subnet:    netip.MustParsePrefix("10.96.0.0/12"),
		Ranges:    []dhcp.Range{{Start: netip.MustParseAddr("10.97.0.0"), End: netip.MustParseAddr("10.100.255.255")}},
		LeaseTime: time.Hour,
	}
	srv, err := dhcp.New(cfg, leases, dhcp.BootNone{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); srv.Serve(ctx, conn) }()
	defer func() { cancel(); <-done; conn.Close() }()
	var n atomic.Uint64
	b.SetParallelism(64)
	b.ReportAllocs()
	cpu0 := cpuTime()
	defer func() { b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op") }()
	b.RunParallel(func(pb *testing.PB) {
		c, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			b.Error(err)
			return
		}
		defer c.Close()
		for pb.Next() {
			if err := dora(c, conn.LocalAddr(), doraMAC(n.Add(1))); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// cpuTime is the process's user + system CPU time (server and clients).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func doraMAC(i uint64) net.HardwareAddr {
	m := make([]byte, 8)
	binary.BigEndian.PutUint64(m, i)
	return net.HardwareAddr{0x52, 0x54, m[4], m[5], m[6], m[7]}
}

// dora runs DISCOVER/OFFER/REQUEST/ACK for mac, resending on loss.
func dora(c net.PacketConn, server net.Addr, mac net.HardwareAddr) error {
	d, err := dhcpv4.NewDiscovery(mac)
	if err != nil {
		return err
	}
	offer, err := exchange(c, server, d, dhcpv4.MessageTypeOffer)
	if err != nil {
		return err
	}
	r, err := dhcpv4.NewRequestFromOffer(offer)
	if err != nil {
		return err
	}
	_, err = exchange(c, server, r, dhcpv4.MessageTypeAck)
	return err
}

func exchange(c net.PacketConn, server net.Addr, req *dhcpv4.DHCPv4, want dhcpv4.MessageType) (*dhcpv4.DHCPv4, error) {
	buf := make([]byte, 1500)
	for try := 0; try < 5; try++ {
		if _, err := c.WriteTo(req.ToBytes(), server); err != nil {
			return nil, err
		}
		c.SetReadDeadline(time.Now().Add(time.Second))
		for {
			n, _, err := c.ReadFrom(buf)
			if err != nil {
				break // timeout: send again
			}
			p, err := dhcpv4.FromBytes(buf[:n])
			if err == nil && p.TransactionID == req.TransactionID && p.MessageType() == want {
				return p, nil
			}
		}
	}
	return nil, errors.New("no answer")
}
