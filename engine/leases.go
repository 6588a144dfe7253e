package engine

import (
	"context"
	"fmt"
	"iter"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/rackboot/rackboot/dhcp"
)

// maxLeaseBatch bounds the leases of one LeaseCommit command, so that one
// log entry stays small.
const maxLeaseBatch = 4096

// Under load (the batch just applied held more than one lease) the flusher
// lingers before sending the next batch: up to lingerTime, or until
// lingerLeases leases wait. Every command costs the store a durable write
// (a raft entry: a bbolt commit and its fdatasyncs) whatever its size, so
// fewer, larger batches cost less CPU per lease; a lone client never waits.
const (
	lingerTime   = 2 * time.Millisecond
	lingerLeases = 256
)

// Leases is a dhcp.Leases kept in a Store. Lookups read the model; Commit
// calls are grouped: while one LeaseCommit command is in flight, the
// commits that arrive meanwhile are merged into the next one, and each
// caller returns when the command holding its lease is applied. Create it
// with NewLeases.
type Leases struct {
	st     Store
	lookup leaseLookup

	mu        sync.Mutex
	queue     []*leaseBatch // waiting to be sent; the last one fills up
	flushing  bool          // a flusher goroutine is running
	lingerFor time.Duration // lingerTime; tests lengthen it
	lingering bool          // the flusher waits for full or lingerFor
	full      chan struct{} // tells a lingering flusher lingerLeases wait
}

type leaseBatch struct {
	leases []LeaseRecord
	done   chan struct{}
	err    error
}

var _ dhcp.Leases = (*Leases)(nil)

// leaseLookup is what a Store backed by a Machine offers to look leases up
// without a Read closure (an allocation per call on the DHCP hot path).
type leaseLookup interface {
	LeaseByIP(ip netip.Addr) (dhcp.Lease, bool)
	LeaseByMAC(mac net.HardwareAddr) (dhcp.Lease, bool)
}

// readLookup looks leases up through Store.Read.
type readLookup struct{ st Store }

func (r readLookup) LeaseByIP(ip netip.Addr) (lease dhcp.Lease, ok bool) {
	r.st.Read(func(m *Model) { lease, ok = m.LeaseByIP(ip) })
	return lease, ok
}

func (r readLookup) LeaseByMAC(mac net.HardwareAddr) (lease dhcp.Lease, ok bool) {
	r.st.Read(func(m *Model) { lease, ok = m.LeaseByMAC(mac) })
	return lease, ok
}

// NewLeases returns the leases of st. If st also has the LeaseByIP and
// LeaseByMAC methods of Machine, lookups use them.
func NewLeases(st Store) *Leases {
	l := &Leases{st: st, lookup: readLookup{st}, full: make(chan struct{}, 1), lingerFor: lingerTime}
	if lk, ok := st.(leaseLookup); ok {
		l.lookup = lk
	}
	return l
}

// ByMAC returns the bound lease of mac.
func (l *Leases) ByMAC(mac net.HardwareAddr) (dhcp.Lease, bool) { return l.lookup.LeaseByMAC(mac) }

// ByIP returns the lease on ip.
func (l *Leases) ByIP(ip netip.Addr) (dhcp.Lease, bool) { return l.lookup.LeaseByIP(ip) }

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
	if !lease.IP.Is4() {
		return fmt.Errorf("%w: %w", dhcp.ErrLeaseStore, invalid("lease address %q is not IPv4", lease.IP))
	}
	b := l.enqueue(RecordOf(lease))
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
	if l.lingering && len(l.queue[0].leases) >= lingerLeases {
		l.lingering = false
		select {
		case l.full <- struct{}{}:
		default:
		}
	}
	if !l.flushing {
		l.flushing = true
		go l.flush()
	}
	return b
}

// flush sends the queued batches one at a time until the queue is empty.
// While one is in flight the next one fills up: that is the grouping. After
// a batch of more than one lease it lingers before sending the next.
func (l *Leases) flush() {
	loaded := false
	for {
		if loaded {
			l.linger()
		}
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
		loaded = len(b.leases) > 1
	}
}

// linger waits up to lingerFor for lingerLeases leases to queue.
func (l *Leases) linger() {
	l.mu.Lock()
	if len(l.queue) > 0 && len(l.queue[0].leases) >= lingerLeases {
		l.mu.Unlock()
		return
	}
	l.lingering = true
	l.mu.Unlock()
	t := time.NewTimer(l.lingerFor)
	select {
	case <-t.C:
	case <-l.full:
	}
	t.Stop()
	l.mu.Lock()
	l.lingering = false
	l.mu.Unlock()
	select { // a signal sent after the timer fired
	case <-l.full:
	default:
	}
}
