package enginetest

import (
	"context"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/engine"
)

// Store is an in-memory engine.Store that is always the leader. The zero
// value is not usable: call NewStore.
type Store struct {
	mu    sync.Mutex // serialises Apply, like a log
	mach  *engine.Machine
	index uint64
	now   func() time.Time
}

var _ engine.Store = (*Store)(nil)

// NewStore returns an empty store stamping commands with time.Now.
func NewStore() *Store { return &Store{mach: engine.NewMachine(), now: time.Now} }

// NewStoreAt returns an empty store stamping commands with now.
func NewStoreAt(now func() time.Time) *Store {
	return &Store{mach: engine.NewMachine(), now: now}
}

// Apply checks cmd against the model, encodes it, decodes it again and
// applies it.
func (s *Store) Apply(ctx context.Context, cmd engine.Command) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cmd.Time().IsZero() {
		cmd.SetTime(s.now())
	}
	if err := s.mach.Check(cmd); err != nil {
		return nil, err // refused: nothing appended, as cluster.Store
	}
	if err := s.mach.Seal(cmd); err != nil {
		return nil, err
	}
	data, err := engine.Encode(cmd)
	if err != nil {
		return nil, err
	}
	s.index++
	r := s.mach.Apply(s.index, data)
	return r.Value, r.Err
}

// SetSealer seals the secret values of every later command, as
// cluster.Store does with Config.Sealer (engine.Machine.SetSealer).
func (s *Store) SetSealer(sl *engine.Sealer) { s.mach.SetSealer(sl) }

// Read implements engine.Store.
func (s *Store) Read(fn func(m *engine.Model)) { s.mach.Read(fn) }

// Barrier returns at once: Apply returns only once applied.
func (s *Store) Barrier(ctx context.Context) error { return ctx.Err() }

// Subscribe implements engine.Store.
func (s *Store) Subscribe(ctx context.Context) <-chan engine.Change {
	return s.mach.Subscribe(ctx)
}

// Leader returns true.
func (s *Store) Leader() bool { return true }

// LeaderChanges sends true and is closed when ctx is done.
func (s *Store) LeaderChanges(ctx context.Context) <-chan bool {
	ch := make(chan bool, 1)
	ch <- true
	context.AfterFunc(ctx, func() { close(ch) })
	return ch
}

// Entries returns how many commands were applied (the log length).
func (s *Store) Entries() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.index
}

// Dump returns the deterministic snapshot encoding of the model.
func (s *Store) Dump() []byte { return Dump(s.mach.Clone()) }

// LeaseByIP returns the lease on ip (the engine.Leases fast path).
func (s *Store) LeaseByIP(ip netip.Addr) (dhcp.Lease, bool) { return s.mach.LeaseByIP(ip) }

// LeaseByMAC returns the bound lease of mac.
func (s *Store) LeaseByMAC(mac net.HardwareAddr) (dhcp.Lease, bool) { return s.mach.LeaseByMAC(mac) }
