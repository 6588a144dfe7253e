package engine

import "context"

// Store is the replicated model as the rest of the engine and the API see
// it. Package cluster implements it with hashicorp/raft; enginetest has an
// in-memory one for tests.
type Store interface {
	// Apply stamps cmd with the current time if it has none, commits it and
	// returns its result once it is applied here: the command's value, or
	// its domain error (ErrNotFound, ErrConflict, ErrInvalid). Other errors
	// (ErrNotLeader, a timeout, ctx) mean the command may or may not be
	// applied later.
	Apply(ctx context.Context, cmd Command) (any, error)
	// Read calls fn with the model under a read lock: fn must be quick, must
	// not keep the model, call Apply or call Read again, and sees a
	// consistent state that includes every command this node has applied.
	Read(fn func(m *Model))
	// Barrier returns when every command committed before the call is
	// applied here, so that a following Read is linearizable.
	Barrier(ctx context.Context) error
	// Subscribe returns the changes applied from now on, in log order. The
	// channel is closed when ctx is done, or early when the subscriber falls
	// behind: then re-read the model and subscribe again. To list and then
	// watch without a gap, subscribe first, then Read, and skip the changes
	// whose Index is not above the Model.Index the Read saw.
	Subscribe(ctx context.Context) <-chan Change
	// Leader reports whether this node is the leader (accepts writes and
	// runs the controllers).
	Leader() bool
	// LeaderChanges sends the current leadership at once and then every
	// change of it, until ctx is done. Only the latest value is kept for a
	// slow receiver.
	LeaderChanges(ctx context.Context) <-chan bool
}
