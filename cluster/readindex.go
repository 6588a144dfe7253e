package cluster

import (
	"context"
	"fmt"

	"github.com/hashicorp/raft"

	"github.com/rackboot/rackboot/engine"
)

// readIndex confirms that this node leads and returns the index a
// linearizable read must wait for (ReadIndex, as etcd calls it): the last
// command (the entries that change the model) in this leader's log as it
// stood before leadership was confirmed. Every write
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

// lastStateIndex is the index of the last command at or below last: the
// model's index once that command is applied (or restored from a snapshot
// holding it). Other entries never raise the model's index, so waiting for
// theirs could last until the next write. A command already compacted
// into a snapshot is applied here: the applied index then answers.
func (s *Store) lastStateIndex(last uint64) uint64 {
	var l raft.Log
	for i := last; i > 0; i-- {
		if err := s.logs.GetLog(i, &l); err != nil {
			return s.fsm.applied.get()
		}
		if l.Type == raft.LogCommand {
			return i
		}
	}
	return 0
}
