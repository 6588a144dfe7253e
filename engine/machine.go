package engine

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"sync"

	"github.com/rackboot/rackboot/dhcp"
)

// Result is what applying one command produced: its value or its domain
// error.
type Result struct {
	Value any
	Err   error
}

// Machine is the model with its lock, its command codec and its change
// feed: the state machine a Store replicates. Apply must be called from one
// goroutine at a time, in log order.
type Machine struct {
	mu     sync.RWMutex
	m      *Model
	codec  *Codec
	feed   feed
	sealer *Sealer // sealstore.go
}

// NewMachine returns a machine holding an empty model.
func NewMachine() *Machine {
	return &Machine{m: NewModel(), codec: NewCodec(), feed: feed{subs: map[*subscriber]struct{}{}}}
}

// Apply applies the encoded command at log index. A command that does not
// decode (a bug, or a log written by a newer rackboot) changes nothing and
// its result is an error wrapping ErrUndecodable: the caller must stop
// applying the entries after it (package cluster halts the node).
func (s *Machine) Apply(index uint64, data []byte) Result {
	return s.ApplyEntry(index, 0, data)
}

// ApplyEntry applies the encoded command of the log entry at index written
// in raft term term (which Fenced commands check).
func (s *Machine) ApplyEntry(index, term uint64, data []byte) Result {
	cmd, err := s.codec.Decode(data)
	if err != nil {
		return Result{Err: fmt.Errorf("%w: log entry %d: %w", ErrUndecodable, index, err)}
	}
	return s.applyCommand(index, term, cmd)
}

// ApplyCommand applies a decoded command at log index (term 0).
func (s *Machine) ApplyCommand(index uint64, cmd Command) Result {
	return s.applyCommand(index, 0, cmd)
}

func (s *Machine) applyCommand(index, term uint64, cmd Command) Result {
	s.mu.Lock()
	tx := &Tx{m: s.m, index: index, term: term, at: cmd.Time(), quiet: !s.feed.active()}
	v, err := cmd.apply(tx)
	if err != nil && tx.writes > 0 {
		s.mu.Unlock()
		panic(fmt.Sprintf("engine: command type %d failed after changing the model: %v", cmd.Type(), err))
	}
	if index > s.m.index {
		s.m.index = index
	}
	s.mu.Unlock()
	s.feed.publish(tx.changes)
	return Result{Value: v, Err: err}
}

// Check checks cmd against the model (Model.Check) under the read lock:
// a Store calls it before it appends cmd, so a refused command costs no
// log entry.
func (s *Machine) Check(cmd Command) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m.Check(cmd)
}

// Read calls fn with the model under the read lock.
func (s *Machine) Read(fn func(m *Model)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	fn(s.m)
}

// LeaseByIP returns the lease on ip (a Read without a closure, for the
// DHCP hot path).
func (s *Machine) LeaseByIP(ip netip.Addr) (dhcp.Lease, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m.LeaseByIP(ip)
}

// LeaseByMAC returns the bound lease of mac.
func (s *Machine) LeaseByMAC(mac net.HardwareAddr) (dhcp.Lease, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m.LeaseByMAC(mac)
}

// Clone returns a copy of the model that later commands do not change,
// for a snapshot to write out without the lock.
func (s *Machine) Clone() *Model {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m.Clone()
}

// Restore replaces the model with m and tells subscribers that anything
// may have changed.
func (s *Machine) Restore(m *Model) {
	s.mu.Lock()
	m.sealer = s.sealer
	s.m = m
	index := m.index
	s.mu.Unlock()
	s.feed.publish([]Change{{Index: index, Kind: KindAll}})
}

// Subscribe implements Store.Subscribe.
func (s *Machine) Subscribe(ctx context.Context) <-chan Change {
	return s.feed.subscribe(ctx)
}
