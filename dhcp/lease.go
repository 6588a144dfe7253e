package dhcp

import (
	"context"
	"errors"
	"iter"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"
)

// ErrLeaseStore is wrapped by errors of Leases implementations that could not
// make a change durable.
var ErrLeaseStore = errors.New("dhcp: lease store")

// Lease binds an address to a client until Expires. A lease with no MAC
// holds an address no client may use (a DECLINEd address) until Expires.
type Lease struct {
	IP       netip.Addr
	MAC      net.HardwareAddr
	Hostname string
	Expires  time.Time
}

// Declined reports whether l blocks its address rather than binding it.
func (l Lease) Declined() bool { return len(l.MAC) == 0 }

// Active reports whether l still holds its address at now.
func (l Lease) Active(now time.Time) bool { return now.Before(l.Expires) }

// Leases is where the server keeps its leases. Lookups are served from
// memory and must be cheap; Commit and Release must be durable when they
// return nil (RFC 2131 wants the lease on stable storage before the ACK).
//
// Commit makes l the lease of l.IP, replacing whatever lease held that
// address, and (unless l is declined) the only lease of l.MAC, dropping the
// client's lease on any other address.
type Leases interface {
	ByMAC(mac net.HardwareAddr) (Lease, bool)
	ByIP(ip netip.Addr) (Lease, bool)
	Commit(ctx context.Context, l Lease) error
	// Release forgets the lease on ip; releasing a free address is not an
	// error.
	Release(ctx context.Context, ip netip.Addr) error
	// All yields every lease, in no particular order.
	All() iter.Seq[Lease]
}

// MemoryLeases is a Leases kept in memory only, also used as the index of
// durable implementations. The zero value is not usable: call
// NewMemoryLeases.
type MemoryLeases struct {
	mu    sync.RWMutex
	byIP  map[netip.Addr]Lease
	byMAC map[string]netip.Addr
}

// NewMemoryLeases returns an empty MemoryLeases.
func NewMemoryLeases() *MemoryLeases {
	return &MemoryLeases{byIP: map[netip.Addr]Lease{}, byMAC: map[string]netip.Addr{}}
}

// ByMAC returns the lease of mac.
func (m *MemoryLeases) ByMAC(mac net.HardwareAddr) (Lease, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	ip, ok := m.byMAC[string(mac)]
	if !ok {
		return Lease{}, false
	}
	return m.byIP[ip], true
}

// ByIP returns the lease on ip.
func (m *MemoryLeases) ByIP(ip netip.Addr) (Lease, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	l, ok := m.byIP[ip]
	return l, ok
}

// Commit stores l; it never fails.
func (m *MemoryLeases) Commit(_ context.Context, l Lease) error {
	m.Apply(l)
	return nil
}

// Release forgets the lease on ip.
func (m *MemoryLeases) Release(_ context.Context, ip netip.Addr) error {
	m.Remove(ip)
	return nil
}

// Apply stores l with the replacement rules of Leases.Commit.
func (m *MemoryLeases) Apply(l Lease) {
	l.MAC = slices.Clone(l.MAC)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.removeLocked(l.IP)
	if !l.Declined() {
		if old, ok := m.byMAC[string(l.MAC)]; ok {
			m.removeLocked(old)
		}
		m.byMAC[string(l.MAC)] = l.IP
	}
	m.byIP[l.IP] = l
}

// Remove forgets the lease on ip.
func (m *MemoryLeases) Remove(ip netip.Addr) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.removeLocked(ip)
}

func (m *MemoryLeases) removeLocked(ip netip.Addr) {
	old, ok := m.byIP[ip]
	if !ok {
		return
	}
	delete(m.byIP, ip)
	if !old.Declined() && m.byMAC[string(old.MAC)] == ip {
		delete(m.byMAC, string(old.MAC))
	}
}

// Len returns the number of leases held.
func (m *MemoryLeases) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.byIP)
}

// All yields a snapshot of every lease.
func (m *MemoryLeases) All() iter.Seq[Lease] {
	m.mu.RLock()
	snap := make([]Lease, 0, len(m.byIP))
	for _, l := range m.byIP {
		snap = append(snap, l)
	}
	m.mu.RUnlock()
	return slices.Values(snap)
}
