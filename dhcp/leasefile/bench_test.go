package leasefile

import (
	"context"
	"sync/atomic"
	"testing"
)

// BenchmarkCommitParallel measures durable commits from many concurrent
// clients: group commit shares one fdatasync between them.
func BenchmarkCommitParallel(b *testing.B) {
	f, err := Open(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var n atomic.Int64
	b.SetParallelism(128)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := f.Commit(context.Background(), lease(int(n.Add(1)%60000)+1)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCommitSerial is one client at a time: one fdatasync per commit.
func BenchmarkCommitSerial(b *testing.B) {
	f, err := Open(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	i := 0
	for b.Loop() {
		i++
		if err := f.Commit(context.Background(), lease(i%60000+1)); err != nil {
			b.Fatal(err)
		}
	}
}
