package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/hashicorp/raft"

	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/engine"
)

// Apply stamps cmd (when it has no time), checks it against this node's
// model (a refused command returns its domain error and is not appended),
// seals the secret values it carries (Config.Sealer), has the leader append it to the
// raft log (forwarding it when this node follows) and returns its result
// once it is applied on this node: the same value and domain error on
// every node. While an election runs it retries, up to ctx's deadline or
// ApplyTimeout.
func (s *Store) Apply(ctx context.Context, cmd engine.Command) (any, error) {
	defer s.applyLat.since(time.Now())
	if cmd.Time().IsZero() {
		cmd.SetTime(s.cfg.Now().UTC())
	}
	if err := s.fsm.mach.Check(cmd); err != nil {
		return nil, err // refused here: nothing is appended (applying checks again)
	}
	if err := s.fsm.mach.Seal(cmd); err != nil {
		return nil, fmt.Errorf("cluster: apply command %d: %w", cmd.Type(), err)
	}
	data, err := engine.Encode(cmd)
	if err != nil {
		return nil, err
	}
	ctx, cancel, err := s.bound(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	var res engine.Result
	err = s.retry(ctx, func() (err error) {
		res, err = s.applyOnce(ctx, data)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: apply command %d: %w", cmd.Type(), err)
	}
	return res.Value, res.Err
}

// applyOnce appends data here when this node leads, else forwards it.
func (s *Store) applyOnce(ctx context.Context, data []byte) (engine.Result, error) {
	if s.raft.State() == raft.Leader {
		return s.applyLocal(ctx, data)
	}
	addr, err := s.leaderAddr()
	if err != nil {
		return engine.Result{}, err
	}
	return s.forwardApply(ctx, addr, data)
}

// applyLocal appends data to this leader's log.
func (s *Store) applyLocal(ctx context.Context, data []byte) (engine.Result, error) {
	timeout, err := s.timeout(ctx)
	if err != nil {
		return engine.Result{}, err
	}
	f := s.raft.Apply(data, timeout)
	if err := wait(ctx, f); err != nil {
		return engine.Result{}, raftErr(err)
	}
	res, ok := f.Response().(engine.Result)
	if !ok {
		return engine.Result{}, fmt.Errorf("unexpected response %T", f.Response())
	}
	return res, nil
}

// bound gives ctx the deadline ApplyTimeout when it has none.
func (s *Store) bound(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if _, ok := ctx.Deadline(); ok {
		ctx, cancel := context.WithCancel(ctx)
		return ctx, cancel, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ApplyTimeout)
	return ctx, cancel, nil
}

// retry runs fn until it succeeds or fails for good: errors wrapping
// errRetry (no leader, or the node asked was not the leader and did
// nothing) are retried after a backoff or as soon as a new leader is
// known, until ctx ends.
func (s *Store) retry(ctx context.Context, fn func() error) error {
	for attempt := 0; ; attempt++ {
		gen := s.changes.current()
		err := fn()
		if err == nil || !errors.Is(err, errRetry) {
			return err
		}
		t := time.NewTimer(backoff(attempt))
		select {
		case <-t.C:
		case <-s.changes.gen.changed(gen):
			t.Stop()
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (%w)", err, context.Cause(ctx))
		case <-s.stop:
			t.Stop()
			return fmt.Errorf("%w (%w)", err, raft.ErrRaftShutdown)
		}
	}
}

// timeout is how long raft may take to accept an entry: until ctx's
// deadline, else ApplyTimeout.
func (s *Store) timeout(ctx context.Context) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	dl, ok := ctx.Deadline()
	if !ok {
		return s.cfg.ApplyTimeout, nil
	}
	if d := time.Until(dl); d > 0 {
		return d, nil
	}
	return 0, context.DeadlineExceeded
}

// wait waits for f or ctx.
func wait(ctx context.Context, f raft.Future) error {
	if ctx.Done() == nil {
		return f.Error()
	}
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// errRetry marks errors after which nothing was done and the operation
// may be tried again (with the leader, once one is known).
var errRetry = errors.New("retryable")

// idempotent marks every "not the leader" error retryable, for operations
// that may safely run twice (a barrier).
func idempotent(err error) error {
	if errors.Is(err, engine.ErrNotLeader) && !errors.Is(err, errRetry) {
		return fmt.Errorf("%w: %w", errRetry, err)
	}
	return err
}

// raftErr maps raft's "cannot write here" errors to engine.ErrNotLeader;
// those that leave nothing done are also marked errRetry.
func raftErr(err error) error {
	switch {
	case errors.Is(err, raft.ErrNotLeader), errors.Is(err, raft.ErrLeadershipTransferInProgress):
		return fmt.Errorf("%w: %w: %w", engine.ErrNotLeader, errRetry, err)
	case errors.Is(err, raft.ErrLeadershipLost):
		return fmt.Errorf("%w: %w", engine.ErrNotLeader, err)
	}
	return err
}

// Read implements engine.Store.
func (s *Store) Read(fn func(m *engine.Model)) { s.fsm.mach.Read(fn) }

// Barrier returns when every entry committed before the call is applied
// here: the leader confirms its leadership and names its read index
// (readindex.go), which this node (the leader, or a follower that asked it)
// then waits to apply. Reads after it are linearizable on every node.
func (s *Store) Barrier(ctx context.Context) error {
	ctx, cancel, err := s.bound(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	return s.barrier(ctx)
}

func (s *Store) barrier(ctx context.Context) error {
	err := s.retry(ctx, func() error {
		if s.raft.State() == raft.Leader {
			index, err := s.readIndex(ctx)
			if err != nil {
				return err
			}
			return s.fsm.applied.wait(ctx, index)
		}
		addr, err := s.leaderAddr()
		if err != nil {
			return err
		}
		return idempotent(s.forwardBarrier(ctx, addr))
	})
	if err != nil {
		return fmt.Errorf("cluster: barrier: %w", err)
	}
	return nil
}

// Subscribe implements engine.Store.
func (s *Store) Subscribe(ctx context.Context) <-chan engine.Change {
	return s.fsm.mach.Subscribe(ctx)
}

// Leader reports whether this node is the raft leader.
func (s *Store) Leader() bool { return s.raft.State() == raft.Leader }

// LeaderTerm implements engine.Termer: the raft term in which this node
// leads.
func (s *Store) LeaderTerm() (uint64, bool) {
	if s.raft.State() != raft.Leader {
		return 0, false
	}
	term := s.raft.CurrentTerm()
	return term, s.raft.State() == raft.Leader && s.raft.CurrentTerm() == term
}

// LeaderChanges implements engine.Store.
func (s *Store) LeaderChanges(ctx context.Context) <-chan bool { return s.leader.subscribe(ctx) }

// Snapshot takes a snapshot now (raft also takes them by itself every
// SnapshotThreshold entries).
func (s *Store) Snapshot() error {
	if err := s.raft.Snapshot().Error(); err != nil {
		return fmt.Errorf("cluster: snapshot: %w", err)
	}
	return nil
}

// LeaseByIP returns the lease on ip without a Read closure (engine.Leases
// uses it on the DHCP hot path).
func (s *Store) LeaseByIP(ip netip.Addr) (dhcp.Lease, bool) { return s.fsm.mach.LeaseByIP(ip) }

// LeaseByMAC returns the bound lease of mac without a Read closure.
func (s *Store) LeaseByMAC(mac net.HardwareAddr) (dhcp.Lease, bool) {
	return s.fsm.mach.LeaseByMAC(mac)
}
