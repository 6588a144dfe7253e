package cluster

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/rackboot/rackboot/engine"
)

// BenchmarkRackApply measures replicated writes, 64 writers at a time:
// on a lone node, and on three nodes over mutual TLS at the leader and at
// a follower (forwarded).
func BenchmarkRackApply(b *testing.B) {
	for _, at := range []string{"lone", "leader", "follower"} {
		b.Run(at, func(b *testing.B) {
			st := benchStore(b, at)
			var n atomic.Int64
			b.SetParallelism(128)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1)
					cmd := &engine.AppendEvent{Event: engine.Event{Severity: "info", Message: fmt.Sprintf("bench %d", i)}}
					if _, err := st.Apply(context.Background(), cmd); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

func benchStore(b *testing.B, at string) *Store {
	if at == "lone" {
		s, err := Open(context.Background(), testConfig(b.TempDir()))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	r := newRack(b, 3)
	r.start(r.nodes...)
	ld := r.leader()
	if at == "follower" {
		return r.followers(ld)[0].st
	}
	return ld.st
}

// BenchmarkRackApplySerial is one writer at a time: the latency of one
// replicated write.
func BenchmarkRackApplySerial(b *testing.B) {
	for _, at := range []string{"lone", "leader", "follower"} {
		b.Run(at, func(b *testing.B) {
			st := benchStore(b, at)
			i := 0
			for b.Loop() {
				i++
				cmd := &engine.AppendEvent{Event: engine.Event{Severity: "info", Message: fmt.Sprintf("bench %d", i)}}
				if _, err := st.Apply(context.Background(), cmd); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRackBarrier measures a linearizable read's barrier: on a lone
// node, and on three nodes at the leader and at a follower (read index
// asked from the leader).
func BenchmarkRackBarrier(b *testing.B) {
	for _, at := range []string{"lone", "leader", "follower"} {
		b.Run(at, func(b *testing.B) {
			st := benchStore(b, at)
			for b.Loop() {
				if err := st.Barrier(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
