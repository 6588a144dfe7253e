package cluster

import (
	"context"
	"errors"
	"fmt"

	"github.com/rackboot/rackboot/engine"
)

// Forwarding: a follower sends writes and barriers to the leader over the
// peer port. This file is the one place that does it.

// ErrRefused: the leader (or a member) refused a request.
var ErrRefused = errors.New("cluster: refused")

// leaderAddr is the leader's raft address, or an errRetry error while
// none is known (or this node cannot forward).
func (s *Store) leaderAddr() (string, error) {
	if s.net == nil {
		return "", fmt.Errorf("%w: %w: this node does not lead", engine.ErrNotLeader, errRetry)
	}
	addr, id := s.raft.LeaderWithID()
	if addr == "" || id == s.id {
		return "", fmt.Errorf("%w: %w: no leader known", engine.ErrNotLeader, errRetry)
	}
	return string(addr), nil
}

// forwardApply has the leader at addr append data, tagged so that this
// node's FSM hands over the entry's result when it applies it here.
func (s *Store) forwardApply(ctx context.Context, addr string, data []byte) (engine.Result, error) {
	tag, seq, ch := s.fsm.results.add()
	defer s.fsm.results.remove(seq)
	resp, err := s.call(ctx, addr, rpcRequest{Op: opApply, Data: data, Tag: tag})
	if err != nil {
		return engine.Result{}, err
	}
	return s.awaitResult(ctx, addr, resp.Index, ch)
}

// awaitResult waits for this node's FSM to hand over the result of the
// forwarded entry at index. The FSM delivers it before it raises its
// applied index, so an index reached without a result means the entry
// came in a snapshot: it is applied, its result unknown.
func (s *Store) awaitResult(ctx context.Context, addr string, index uint64, ch <-chan engine.Result) (engine.Result, error) {
	for {
		cur := s.fsm.applied.get()
		if cur >= index {
			select {
			case res := <-ch:
				return res, nil
			default:
				return engine.Result{}, fmt.Errorf("forwarded to %s and committed at index %d, which reached this node in a snapshot: applied, result unknown", addr, index)
			}
		}
		select {
		case res := <-ch:
			return res, nil
		case <-s.fsm.applied.changed(cur):
		case <-s.fsm.halt.done:
			return engine.Result{}, fmt.Errorf("forwarded to %s and committed at index %d: %w", addr, index, s.fsm.halt.err)
		case <-ctx.Done():
			return engine.Result{}, fmt.Errorf("forwarded to %s and committed at index %d, not yet applied here: %w", addr, index, context.Cause(ctx))
		case <-s.stop:
			return engine.Result{}, fmt.Errorf("forwarded to %s and committed at index %d; node closed", addr, index)
		}
	}
}

// forwardBarrier asks the leader at addr for its read index and waits
// until this node has applied up to it.
func (s *Store) forwardBarrier(ctx context.Context, addr string) error {
	resp, err := s.call(ctx, addr, rpcRequest{Op: opReadIndex})
	if err != nil {
		return err
	}
	if err := s.fsm.applied.wait(ctx, resp.Index); err != nil {
		return fmt.Errorf("waiting to apply index %d: %w", resp.Index, err)
	}
	return nil
}

// call sends req to the member at addr and maps the response's code to
// an error: retryable ones (nothing was done) wrap errRetry.
func (s *Store) call(ctx context.Context, addr string, req rpcRequest) (rpcResponse, error) {
	resp, sent, err := s.pool.call(ctx, addr, req)
	switch {
	case err != nil && !sent:
		return resp, fmt.Errorf("%w: %w: %w", engine.ErrNotLeader, errRetry, err) // nothing sent
	case err != nil:
		return resp, fmt.Errorf("%w: outcome unknown: %w", engine.ErrNotLeader, err)
	}
	switch resp.Code {
	case codeOK:
		return resp, nil
	case codeNotLeader:
		return resp, fmt.Errorf("%w: %w: %s: %s", engine.ErrNotLeader, errRetry, addr, resp.Err)
	case codeRefused:
		return resp, fmt.Errorf("%w by %s: %s", ErrRefused, addr, resp.Err)
	case codeUnknown:
		return resp, fmt.Errorf("%w: outcome unknown: %s: %s", engine.ErrNotLeader, addr, resp.Err)
	case codeNotFound:
		return resp, fmt.Errorf("%w by %s: %w: %s", ErrRefused, addr, engine.ErrNotFound, resp.Err)
	case codeInvalid:
		return resp, fmt.Errorf("%w by %s: %w: %s", ErrRefused, addr, engine.ErrInvalid, resp.Err)
	}
	return resp, fmt.Errorf("%s: %s", addr, resp.Err)
}
