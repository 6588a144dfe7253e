package engine

import (
	"context"
	"fmt"
	"iter"
	"net"
	"net/netip"
	"slices"
	"sync"

	"github.com/rackboot/rackboot/dhcp"
)

// maxLeaseBatch bounds the leases of one LeaseCommit command, so that one
// log entry stays small.
const maxLeaseBatch = 4096

// Leases is a dhcp.Leases kept in a Store. Lookups read the model; Commit
// calls are grouped: while one LeaseCommit command is in flight, the
// commits that arrive meanwhile are merged into the next one, and each
// caller returns when the command holding its lease is applied. Create it
// with NewLeases.
type Leases struct {
	st Store

	mu       sync.Mutex
	queue    []*leaseBatch // waiting to be sent; the last one fills up
	flushing bool          // a flusher goroutine is running
}

type leaseBatch struct {
	leases []LeaseRecord
	done   chan struct{}
	err    error
}

var _ dhcp.Leases = (*Leases)(nil)

// NewLeases returns the leases of st.
func NewLeases(st Store) *Leases { return &Leases{st: st} }

// ByMAC returns the bound lease of mac.
func (l *Leases) ByMAC(mac net.HardwareAddr) (lease dhcp.Lease, ok bool) {
	l.st.Read(func(m *Model) { lease, ok = m.LeaseByMAC(mac) })
	return lease, ok
}

// ByIP returns the lease on ip.
func (l *Leases) ByIP(ip netip.Addr) (lease dhcp.Lease, ok bool) {
	l.st.Read(func(m *Model) { lease, ok = m.LeaseByIP(ip) })
	return lease, ok
}

// All yields a copy of every lease taken when iteration starts.
func (l *Leases) All() iter.Seq[dhcp.Lease] {
	return func(yield func(dhcp.Lease) bool) {
		var all []dhcp.Lease
		l.st.Read(func(m *Model) { all = slices.Collect(m.Leases()) })
		for _, x := range all {
			if !yield(x) {
				return
			}
		}
	}
}

// Release forgets the lease on ip once the release is committed.
func (l *Leases) Release(ctx context.Context, ip netip.Addr) error {
	if _, err := l.st.Apply(ctx, &LeaseRelease{IPs: []netip.Addr{ip}}); err != nil {
		return fmt.Errorf("%w: release %s: %w", dhcp.ErrLeaseStore, ip, err)
	}
	return nil
}

// Commit stores lease and returns when the command holding it is applied.
// If ctx ends first, Commit returns its error; the lease may still be
// stored.
func (l *Leases) Commit(ctx context.Context, lease dhcp.Lease) error {
	rec := RecordOf(lease)
	if _, err := rec.Lease(); err != nil {
		return fmt.Errorf("%w: %w", dhcp.ErrLeaseStore, err)
	}
	b := l.enqueue(rec)
	select {
	case <-b.done:
		if b.err != nil {
			return fmt.Errorf("%w: commit %s: %w", dhcp.ErrLeaseStore, lease.IP, b.err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: commit %s: %w", dhcp.ErrLeaseStore, lease.IP, ctx.Err())
	}
}

// enqueue adds rec to the last queued batch (a new one when that is full
// or being sent) and starts a flusher if none runs.
func (l *Leases) enqueue(rec LeaseRecord) *leaseBatch {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.queue)
	if n == 0 || len(l.queue[n-1].leases) >= maxLeaseBatch {
		l.queue = append(l.queue, &leaseBatch{done: make(chan struct{})})
		n++
	}
	b := l.queue[n-1]
	b.leases = append(b.leases, rec)
	if !l.flushing {
		l.flushing = true
		go l.flush()
	}
	return b
}

// flush sends the queued batches one at a time until the queue is empty.
// While one is in flight the next one fills up: that is the grouping.
func (l *Leases) flush() {
	for {
		l.mu.Lock()
		if len(l.queue) == 0 {
			l.flushing = false
			l.mu.Unlock()
			return
		}
		b := l.queue[0]
		l.queue[0] = nil
		l.queue = l.queue[1:]
		l.mu.Unlock()
		_, b.err = l.st.Apply(context.Background(), &LeaseCommit{Leases: b.leases})
		close(b.done)
	}
}
