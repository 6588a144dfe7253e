package cluster

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/hashicorp/raft"

	"github.com/rackboot/rackboot/engine"
)

// fsm runs an engine.Machine as raft's state machine.
type fsm struct {
	mach     *engine.Machine
	commands atomic.Uint64 // command entries applied since start
}

var _ raft.FSM = (*fsm)(nil)

// Apply applies one committed command entry; the result is an
// engine.Result.
func (f *fsm) Apply(l *raft.Log) any {
	f.commands.Add(1)
	return f.mach.Apply(l.Index, l.Data)
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
	f.mach.Restore(m)
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
