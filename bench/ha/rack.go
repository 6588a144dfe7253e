package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/rackboot/rackboot/testbed/ha"
)

// newRack starts a rack of n appliances (dhcp: its [dhcp] table, "" for
// the default) and waits for its leader to hold the service address.
func (b *bench) newRack(ctx context.Context, n int, dhcp string) (*ha.Rack, error) {
	b.seq++
	r, err := ha.New(ctx, ha.Options{Nodes: n, Binary: b.o.bin, Dir: filepath.Join(b.o.work, fmt.Sprintf("rack%d", b.seq)),
		LogLevel: "info", DHCP: dhcp})
	if err != nil {
		return nil, err
	}
	if err := b.ready(ctx, r); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// ready starts the rack's nodes and waits for a leader holding the
// service address.
func (b *bench) ready(ctx context.Context, r *ha.Rack) error {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	if err := r.Start(ctx); err != nil {
		return err
	}
	l, err := r.Leader(ctx)
	if err != nil {
		return err
	}
	h, err := r.WaitVIP(ctx)
	if err != nil {
		return err
	}
	if h != l {
		return fmt.Errorf("the service address is on %s, the leader is %s", h.Name, l.Name)
	}
	return nil
}

// percentile is the nearest-rank p-th percentile of sorted ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := int(float64(len(ds))*p/100+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(ds) {
		i = len(ds) - 1
	}
	return ds[i]
}

func sorted(ds []time.Duration) []time.Duration {
	out := append([]time.Duration(nil), ds...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
