package cluster

import (
	"context"
	"net"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/engine"
)

func benchLease(i int) dhcp.Lease {
	return dhcp.Lease{
		IP:      netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}),
		MAC:     net.HardwareAddr{0x52, 0x54, 0, byte(i >> 16), byte(i >> 8), byte(i)},
		Expires: time.Now().Add(time.Hour),
	}
}

// BenchmarkLeaseCommitParallel measures durable lease commits from many
// concurrent DHCP handlers through engine.Leases and raft; the leases per
// command show the grouping.
func BenchmarkLeaseCommitParallel(b *testing.B) {
	s, err := Open(context.Background(), testConfig(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	l := engine.NewLeases(s)
	before := s.Stats()
	var n atomic.Int64
	b.SetParallelism(128)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := l.Commit(context.Background(), benchLease(int(n.Add(1)%60000)+1)); err != nil {
				b.Fatal(err)
			}
		}
	})
	if cmds := s.Stats().Commands - before.Commands; cmds > 0 {
		b.ReportMetric(float64(b.N)/float64(cmds), "leases/command")
	}
}

// BenchmarkLeaseCommitSerial is one handler at a time: one raft entry per
// commit.
func BenchmarkLeaseCommitSerial(b *testing.B) {
	s, err := Open(context.Background(), testConfig(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	l := engine.NewLeases(s)
	i := 0
	for b.Loop() {
		i++
		if err := l.Commit(context.Background(), benchLease(i%60000+1)); err != nil {
			b.Fatal(err)
		}
	}
}
