package cluster

import (
	"context"
	"fmt"

	"github.com/hashicorp/raft"

	"github.com/rackboot/rackboot/engine"
)

// readIndex confirms that this node leads and returns the index a
// linearizable read must wait for (ReadIndex, as etcd calls it): the last
// entry that changes the state (a command or a configuration) in this
// leader's log as it stood before leadership was confirmed. Every write
// acknowledged before the call is in that log (leader completeness), so a
// node that has applied up to the index reflects all of them. Confirming
// takes a heartbeat round to a majority, no disk write.
func (s *Store) readIndex(ctx context.Context) (uint64, error) {
	if s.raft.State() != raft.Leader {
		return 0, fmt.Errorf("%w: %w: this node does not lead", engine.ErrNotLeader, errRetry)
	}
	last := s.raft.LastIndex()
	if err := wait(ctx, s.raft.VerifyLeader()); err != nil {
		return 0, idempotent(raftErr(err))
	}
	return s.lastStateIndex(last), nil
}

// lastStateIndex is the index of the last command or configuration entry
// at or below last. Barriers and no-ops do not reach the FSM, so waiting
// for their index would never end. An entry already compacted into a
// snapshot is applied here: the applied index then answers.
func (s *Store) lastStateIndex(last uint64) uint64 {
	var l raft.Log
	for i := last; i > 0; i-- {
		if err := s.logs.GetLog(i, &l); err != nil {
			return s.fsm.applied.get()
		}
		if l.Type == raft.LogCommand || l.Type == raft.LogConfiguration {
			return i
		}
	}
	return 0
}
