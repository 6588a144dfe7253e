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

// Apply stamps cmd (when it has no time), appends it to the raft log and
// returns its result once it is applied on this node.
func (s *Store) Apply(ctx context.Context, cmd engine.Command) (any, error) {
	if cmd.Time().IsZero() {
		cmd.SetTime(s.cfg.Now().UTC())
	}
	data, err := engine.Encode(cmd)
	if err != nil {
		return nil, err
	}
	timeout, err := s.timeout(ctx)
	if err != nil {
		return nil, err
	}
	f := s.raft.Apply(data, timeout)
	if err := wait(ctx, f); err != nil {
		return nil, fmt.Errorf("cluster: apply command %d: %w", cmd.Type(), raftErr(err))
	}
	res, ok := f.Response().(engine.Result)
	if !ok {
		return nil, fmt.Errorf("cluster: apply command %d: unexpected response %T", cmd.Type(), f.Response())
	}
	return res.Value, res.Err
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

// raftErr maps raft's "cannot write here" errors to engine.ErrNotLeader.
func raftErr(err error) error {
	switch {
	case errors.Is(err, raft.ErrNotLeader), errors.Is(err, raft.ErrLeadershipLost),
		errors.Is(err, raft.ErrLeadershipTransferInProgress):
		return fmt.Errorf("%w: %w", engine.ErrNotLeader, err)
	}
	return err
}

// Read implements engine.Store.
func (s *Store) Read(fn func(m *engine.Model)) { s.fsm.mach.Read(fn) }

// Barrier returns when every entry committed before the call is applied
// here. Only the leader can issue one.
func (s *Store) Barrier(ctx context.Context) error {
	timeout, err := s.timeout(ctx)
	if err != nil {
		return err
	}
	if err := wait(ctx, s.raft.Barrier(timeout)); err != nil {
		return fmt.Errorf("cluster: barrier: %w", raftErr(err))
	}
	return nil
}

// Subscribe implements engine.Store.
func (s *Store) Subscribe(ctx context.Context) <-chan engine.Change {
	return s.fsm.mach.Subscribe(ctx)
}

// Leader reports whether this node is the raft leader.
func (s *Store) Leader() bool { return s.raft.State() == raft.Leader }

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

// Stats are counters of a node.
type Stats struct {
	LastIndex    uint64 // last raft log index
	AppliedIndex uint64 // last index applied to the model
	Commands     uint64 // command entries applied since Open
}

// Stats returns the node's counters.
func (s *Store) Stats() Stats {
	return Stats{LastIndex: s.raft.LastIndex(), AppliedIndex: s.raft.AppliedIndex(), Commands: s.fsm.commands.Load()}
}

// LeaseByIP returns the lease on ip without a Read closure (engine.Leases
// uses it on the DHCP hot path).
func (s *Store) LeaseByIP(ip netip.Addr) (dhcp.Lease, bool) { return s.fsm.mach.LeaseByIP(ip) }

// LeaseByMAC returns the bound lease of mac without a Read closure.
func (s *Store) LeaseByMAC(mac net.HardwareAddr) (dhcp.Lease, bool) {
	return s.fsm.mach.LeaseByMAC(mac)
}
