package cluster

import (
	"bufio"
	"context"
	"errors"
	"time"

	"github.com/hashicorp/raft"

	"github.com/rackboot/rackboot/cluster/tlsnet"
	"github.com/rackboot/rackboot/engine"
)

// rpcWriteTimeout bounds writing one response.
const rpcWriteTimeout = 10 * time.Second

// serveRPC answers a peer's requests until it hangs up.
func (s *Store) serveRPC(c *tlsnet.Conn) {
	defer c.Close()
	rd := bufio.NewReader(c)
	for {
		var req rpcRequest
		if err := readFrame(rd, &req); err != nil {
			return
		}
		resp := s.handle(c.Peer, req)
		_ = c.SetWriteDeadline(time.Now().Add(rpcWriteTimeout))
		if err := writeFrame(c, resp); err != nil {
			return
		}
		_ = c.SetWriteDeadline(time.Time{})
	}
}

// handle runs one request of peer.
func (s *Store) handle(peer string, req rpcRequest) rpcResponse {
	if req.Op == opJoin {
		return s.handleJoin(peer, req)
	}
	if !s.isMember(peer) {
		s.cfg.Log.Warn("refused a request of a node that is not a member", "peer", peer, "op", req.Op)
		return rpcResponse{Code: codeRefused, Err: "node " + peer + " is not a member of this cluster"}
	}
	ctx, cancel := context.WithTimeout(s.life, s.cfg.ApplyTimeout)
	defer cancel()
	switch req.Op {
	case opApply:
		return s.handleApply(req)
	case opReadIndex:
		return s.handleReadIndex(ctx)
	case opRemove:
		return indexed(s.removeMember(ctx, req.ID))
	case opStats:
		st := s.memberStats()
		return rpcResponse{Stats: &st}
	}
	return rpcResponse{Code: codeRefused, Err: "unknown operation " + req.Op}
}

// handleApply appends a forwarded command, tagged for its forwarder.
func (s *Store) handleApply(req rpcRequest) rpcResponse {
	if s.raft.State() != raft.Leader {
		return rpcResponse{Code: codeNotLeader, Err: "not the leader"}
	}
	if _, err := s.codec.Decode(req.Data); err != nil {
		return rpcResponse{Code: codeRefused, Err: err.Error()}
	}
	f := s.raft.ApplyLog(raft.Log{Data: req.Data, Extensions: req.Tag}, s.cfg.ApplyTimeout)
	if err := f.Error(); err != nil {
		return failure(err)
	}
	s.nudger.nudge()
	return rpcResponse{Index: f.Index()}
}

// handleReadIndex answers a follower's Barrier with this leader's read
// index. Any failure to confirm leadership is "ask the leader": a read
// index may be asked again.
func (s *Store) handleReadIndex(ctx context.Context) rpcResponse {
	index, err := s.readIndex(ctx)
	if err != nil {
		return rpcResponse{Code: codeNotLeader, Err: err.Error()}
	}
	return rpcResponse{Index: index}
}

// handleJoin adds a voter. A node that is not a member may only ask for
// itself; members may pass on another node's request.
func (s *Store) handleJoin(peer string, req rpcRequest) rpcResponse {
	if req.ID != peer && !s.isMember(peer) {
		s.cfg.Log.Warn("refused a join request for another node", "peer", peer, "node", req.ID)
		return rpcResponse{Code: codeRefused, Err: "node " + peer + " may only ask to add itself, not " + req.ID}
	}
	ctx, cancel := context.WithTimeout(s.life, s.cfg.ApplyTimeout)
	defer cancel()
	if req.ID == peer && !s.isMember(peer) {
		if err := s.Barrier(ctx); err != nil {
			return result(err)
		}
		if s.wasRemoved(peer) {
			s.cfg.Log.Warn("refused the join of a removed member: an operator may add it again (rackbootctl cluster join)", "peer", peer)
			return rpcResponse{Code: codeRefused, Err: "node " + peer + " was removed from this cluster: an operator may add it again (rackbootctl cluster join)"}
		}
	}
	return indexed(s.addMember(ctx, Peer{ID: req.ID, Addr: req.Addr}))
}

// failure is the response for an error of raft on the leader.
func failure(err error) rpcResponse {
	switch {
	case retryable(err):
		return rpcResponse{Code: codeNotLeader, Err: err.Error()}
	case errors.Is(err, raft.ErrLeadershipLost):
		return rpcResponse{Code: codeUnknown, Err: err.Error()}
	}
	return rpcResponse{Code: codeFailed, Err: err.Error()}
}

// indexed is the response for an operation that returns a log index.
func indexed(index uint64, err error) rpcResponse {
	if err != nil {
		return result(err)
	}
	return rpcResponse{Index: index}
}

// result is the response for an operation's error.
func result(err error) rpcResponse {
	switch {
	case err == nil:
		return rpcResponse{}
	case errors.Is(err, engine.ErrNotFound):
		return rpcResponse{Code: codeNotFound, Err: err.Error()}
	case errors.Is(err, engine.ErrInvalid):
		return rpcResponse{Code: codeInvalid, Err: err.Error()}
	case errors.Is(err, ErrRefused):
		return rpcResponse{Code: codeRefused, Err: err.Error()}
	}
	return failure(err)
}

// retryable reports whether err means raft did nothing with the request
// because this node is not (or no longer, or not yet) the leader.
func retryable(err error) bool {
	return errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipTransferInProgress) ||
		errors.Is(err, engine.ErrNotLeader) && !errors.Is(err, raft.ErrLeadershipLost)
}
