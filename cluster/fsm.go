package cluster

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/raft"

	"github.com/rackboot/rackboot/engine"
)

// fsm runs an engine.Machine as raft's state machine. It also tells this
// node's forwarded writes their results (a forwarded entry carries a tag
// in its log extensions), and raises the applied index that follower
// barriers wait for.
type fsm struct {
	mach     *engine.Machine
	commands atomic.Uint64 // command entries applied since start
	applied  *progress     // index of the last command applied (or restored): the model's index
	configs  *progress     // index of the last configuration entry applied
	results  *waiters      // this node's forwarded writes
	// onConfig, when set, is called with each committed configuration.
	onConfig func(raft.Configuration)
	halt     halt // set by the first entry that cannot be applied
}

// ErrHalted is wrapped by the error of a node that met a log entry it
// cannot decode: it applies nothing after that entry (so that its state
// never drifts from the log), takes no snapshot, and must be stopped.
// docs/operations.md says how to get out.
var ErrHalted = errors.New("cluster: stopped applying the raft log")

// halt records the first entry the FSM could not apply. Once set, the FSM
// applies no later entry and takes no snapshot.
type halt struct {
	once sync.Once
	done chan struct{} // closed when err is set
	err  error
}

func newHalt() halt { return halt{done: make(chan struct{})} }

func (h *halt) set(err error) {
	h.once.Do(func() {
		h.err = err
		close(h.done)
	})
}

// get returns the halting error, or nil while the FSM applies.
func (h *halt) get() error {
	select {
	case <-h.done:
		return h.err
	default:
		return nil
	}
}

var (
	_ raft.FSM                = (*fsm)(nil)
	_ raft.ConfigurationStore = (*fsm)(nil)
)

func newFSM(m *engine.Machine) *fsm {
	return &fsm{mach: m, applied: newProgress(), configs: newProgress(), results: newWaiters(), halt: newHalt()}
}

// Apply applies one committed command entry; the result is an
// engine.Result. An entry that does not decode halts the FSM: neither it
// nor any later entry is applied, and the applied index stays before it,
// so waiting for it fails with ErrHalted instead of going on with a state
// that lacks it.
func (f *fsm) Apply(l *raft.Log) any {
	if err := f.halt.get(); err != nil {
		return f.refuse(l, engine.Result{Err: err})
	}
	f.commands.Add(1)
	res := f.mach.ApplyEntry(l.Index, l.Term, l.Data)
	if errors.Is(res.Err, engine.ErrUndecodable) {
		err := fmt.Errorf("%w at entry %d (term %d): %w", ErrHalted, l.Index, l.Term, res.Err)
		f.halt.set(err)
		f.applied.fail(err)
		return f.refuse(l, engine.Result{Err: err})
	}
	if len(l.Extensions) > 0 {
		f.results.deliver(l.Extensions, res)
	}
	f.applied.advance(l.Index)
	return res
}

// refuse answers an entry the halted FSM does not apply.
func (f *fsm) refuse(l *raft.Log, res engine.Result) engine.Result {
	if len(l.Extensions) > 0 {
		f.results.deliver(l.Extensions, res)
	}
	return res
}

// StoreConfiguration is told each committed configuration.
func (f *fsm) StoreConfiguration(index uint64, c raft.Configuration) {
	if f.onConfig != nil {
		f.onConfig(c)
	}
	f.configs.advance(index)
}

// Snapshot clones the model; raft calls it in the FSM goroutine, so the
// clone is the state after the last applied entry.
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	if err := f.halt.get(); err != nil {
		// raft would record the snapshot as covering the entries this
		// node did not apply, and compact them away.
		return nil, err
	}
	return &snapshot{m: f.mach.Clone()}, nil
}

// Restore replaces the model with the snapshot in rc.
func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	m, err := engine.ReadModel(rc)
	if err != nil {
		return fmt.Errorf("cluster: restore: %w", err)
	}
	index := m.Index()
	f.mach.Restore(m)
	f.applied.advance(index)
	return nil
}

// snapshot is a clone of the model, written out without any lock.
type snapshot struct {
	m *engine.Model
}

// Persist writes the model to sink.
func (s *snapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := s.m.WriteTo(sink); err != nil {
		sink.Cancel()
		return fmt.Errorf("cluster: persist snapshot: %w", err)
	}
	return sink.Close()
}

// Release drops the clone.
func (s *snapshot) Release() { s.m = nil }
