package cluster

import (
	"fmt"
	"io"
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
}

var (
	_ raft.FSM                = (*fsm)(nil)
	_ raft.ConfigurationStore = (*fsm)(nil)
)

func newFSM(m *engine.Machine) *fsm {
	return &fsm{mach: m, applied: newProgress(), configs: newProgress(), results: newWaiters()}
}

// Apply applies one committed command entry; the result is an
// engine.Result.
func (f *fsm) Apply(l *raft.Log) any {
	f.commands.Add(1)
	res := f.mach.ApplyEntry(l.Index, l.Term, l.Data)
	if len(l.Extensions) > 0 {
		f.results.deliver(l.Extensions, res)
	}
	f.applied.advance(l.Index)
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
