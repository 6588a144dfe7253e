package engine

import (
	"context"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rackboot/rackboot/dhcp"
)

// gatedStore applies commands to a Machine, holding each Apply until the
// test lets it go.
type gatedStore struct {
	mach     *Machine
	gate     chan struct{}
	applies  atomic.Uint64
	inFlight atomic.Int64 // leases of commands waiting at the gate
	maxBatch atomic.Int64
	mu       sync.Mutex
}

func (g *gatedStore) Apply(ctx context.Context, cmd Command) (any, error) {
	if lc, ok := cmd.(*LeaseCommit); ok {
		n := int64(len(lc.Leases))
		g.inFlight.Add(n)
		defer g.inFlight.Add(-n)
		if n > g.maxBatch.Load() {
			g.maxBatch.Store(n)
		}
	}
	<-g.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	cmd.SetTime(time.Unix(0, 0))
	b, err := Encode(cmd)
	if err != nil {
		return nil, err
	}
	r := g.mach.Apply(g.applies.Add(1), b)
	return r.Value, r.Err
}
func (g *gatedStore) Read(fn func(*Model))                        { g.mach.Read(fn) }
func (g *gatedStore) Barrier(context.Context) error               { return nil }
func (g *gatedStore) Subscribe(ctx context.Context) <-chan Change { return g.mach.Subscribe(ctx) }
func (g *gatedStore) Leader() bool                                { return true }
func (g *gatedStore) LeaderChanges(context.Context) <-chan bool   { return nil }

// waiting counts the leases queued or held at the gate.
func waiting(l *Leases, g *gatedStore) int {
	return queued(l) + int(g.inFlight.Load())
}

func queued(l *Leases) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, b := range l.queue {
		n += len(b.leases)
	}
	return n
}

// Commits that arrive while a batch is in flight travel together in the
// next command.
func TestLeaseCommitsGrouped(t *testing.T) {
	g := &gatedStore{mach: NewMachine(), gate: make(chan struct{})}
	l := NewLeases(g)
	const n = 500
	errs := make(chan error, n)
	for i := range n {
		go func() {
			mac := net.HardwareAddr{0x52, 0x54, 0, 0, byte(i >> 8), byte(i)}
			errs <- l.Commit(context.Background(), dhcp.Lease{IP: netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), MAC: mac})
		}()
	}
	// One batch is in flight (held at the gate), the rest wait behind it.
	deadline := time.Now().Add(10 * time.Second)
	for waiting(l, g) < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d commits queued", waiting(l, g))
		}
		runtime.Gosched()
	}
	close(g.gate)
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := g.applies.Load(); got > 2 {
		t.Errorf("%d concurrent commits took %d commands, want at most 2", n, got)
	}
	for i := range n {
		mac := net.HardwareAddr{0x52, 0x54, 0, 0, byte(i >> 8), byte(i)}
		if got, ok := l.ByMAC(mac); !ok || got.IP != netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}) {
			t.Fatalf("lease of %s = %v %v", mac, got, ok)
		}
	}
}

// A batch never grows past maxLeaseBatch.
func TestLeaseBatchBounded(t *testing.T) {
	g := &gatedStore{mach: NewMachine(), gate: make(chan struct{})}
	l := NewLeases(g)
	n := maxLeaseBatch*2 + 1
	errs := make(chan error, n)
	for i := range n {
		go func() {
			ip := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
			errs <- l.Commit(context.Background(), dhcp.Lease{IP: ip, MAC: net.HardwareAddr{2, 0, 0, byte(i >> 16), byte(i >> 8), byte(i)}})
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for waiting(l, g) < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d commits queued", waiting(l, g))
		}
		runtime.Gosched()
	}
	close(g.gate)
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := g.maxBatch.Load(); got > maxLeaseBatch {
		t.Errorf("a command held %d leases", got)
	}
	if got := g.applies.Load(); got > 4 {
		t.Errorf("%d commits took %d commands, want at most 4", n, got)
	}
}

// Under load (the last batch held more than one lease) the flusher lingers
// for more leases, and sends them as soon as lingerLeases wait.
func TestLeaseLingerEndsWhenFull(t *testing.T) {
	g := &gatedStore{mach: NewMachine(), gate: make(chan struct{})}
	l := NewLeases(g)
	l.lingerFor = time.Hour // only a full batch can end the linger
	errs := make(chan error, lingerLeases+3)
	commit := func(i int) {
		ip := netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)})
		errs <- l.Commit(context.Background(), dhcp.Lease{IP: ip, MAC: net.HardwareAddr{2, 0, 0, 1, byte(i >> 8), byte(i)}})
	}
	release := func() {
		select {
		case g.gate <- struct{}{}:
		case <-time.After(10 * time.Second):
			t.Fatal("no command reached the store")
		}
	}
	go commit(0) // sent alone, held at the gate
	waitFor(t, func() bool { return g.inFlight.Load() == 1 })
	go commit(1)
	go commit(2)
	waitFor(t, func() bool { return queued(l) == 2 })
	release() // lease 0
	release() // leases 1 and 2 together: the flusher lingers now
	waitFor(t, func() bool { l.mu.Lock(); defer l.mu.Unlock(); return l.lingering })
	for i := range lingerLeases {
		go commit(3 + i)
	}
	release()
	for range lingerLeases + 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := g.applies.Load(); got != 3 {
		t.Errorf("%d commands, want 3", got)
	}
	if got := g.maxBatch.Load(); got != lingerLeases {
		t.Errorf("largest command held %d leases, want %d", got, lingerLeases)
	}
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		runtime.Gosched()
	}
}
