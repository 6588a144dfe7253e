package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/rackboot/rackboot/cluster/rackca"
	"github.com/rackboot/rackboot/engine"
)

// AddMember adds p as a voter (on the leader; a follower forwards the
// request) and returns once this node has applied the change. Adding a
// member that is already there at the same address does nothing; at
// another address it is refused.
func (s *Store) AddMember(ctx context.Context, p Peer) error {
	_, err := s.addMember(ctx, p)
	return err
}

func (s *Store) addMember(ctx context.Context, p Peer) (uint64, error) {
	if err := s.rackOnly(); err != nil {
		return 0, err
	}
	if err := checkPeer(p); err != nil {
		return 0, err
	}
	index, err := s.changeMembers(ctx, rpcRequest{Op: opJoin, ID: p.ID, Addr: p.Addr}, func() (uint64, error) {
		return s.addVoter(ctx, p)
	})
	if err != nil {
		return 0, fmt.Errorf("cluster: add %s: %w", p, err)
	}
	return index, nil
}

// RemoveMember removes the member id (on the leader; a follower forwards
// the request) and returns once this node has applied the change.
// Removing the leader itself makes it step down once the change is
// committed.
func (s *Store) RemoveMember(ctx context.Context, id string) error {
	_, err := s.removeMember(ctx, id)
	return err
}

func (s *Store) removeMember(ctx context.Context, id string) (uint64, error) {
	if err := s.rackOnly(); err != nil {
		return 0, err
	}
	index, err := s.changeMembers(ctx, rpcRequest{Op: opRemove, ID: id}, func() (uint64, error) {
		return s.removeServer(ctx, id)
	})
	if err != nil {
		return 0, fmt.Errorf("cluster: remove %s: %w", id, err)
	}
	return index, nil
}

// changeMembers runs a membership change on the leader (local, here, or
// req forwarded), retrying while no leader is known or leadership is lost
// (the changes are idempotent: a retry finding a removal done succeeds),
// and waits until this node has applied it.
func (s *Store) changeMembers(ctx context.Context, req rpcRequest, local func() (uint64, error)) (uint64, error) {
	ctx, cancel, err := s.bound(ctx)
	if err != nil {
		return 0, err
	}
	defer cancel()
	var index uint64
	attempts := 0
	err = s.retry(ctx, func() error {
		attempts++
		var err error
		if s.raft.State() == raft.Leader {
			index, err = local()
		} else {
			index, err = s.forwardMembers(ctx, req)
		}
		if req.Op == opRemove && attempts > 1 && errors.Is(err, engine.ErrNotFound) {
			return nil // an earlier attempt removed it
		}
		return idempotent(err)
	})
	if err != nil {
		return 0, err
	}
	if err := s.fsm.configs.wait(ctx, index); err != nil {
		return 0, fmt.Errorf("changed at index %d, not yet applied here: %w", index, err)
	}
	return index, nil
}

// forwardMembers sends a membership change to the leader.
func (s *Store) forwardMembers(ctx context.Context, req rpcRequest) (uint64, error) {
	addr, err := s.leaderAddr()
	if err != nil {
		return 0, err
	}
	resp, err := s.call(ctx, addr, req)
	return resp.Index, err
}

// addVoter adds p on this leader and returns the change's index.
func (s *Store) addVoter(ctx context.Context, p Peer) (uint64, error) {
	servers, err := s.members.servers()
	if err != nil {
		return 0, err
	}
	for _, srv := range servers {
		switch {
		case string(srv.ID) == p.ID && string(srv.Address) == p.Addr:
			return 0, nil
		case string(srv.ID) == p.ID:
			return 0, fmt.Errorf("%w: node %s is already a member at %s: remove it first", ErrRefused, p.ID, srv.Address)
		case string(srv.Address) == p.Addr:
			return 0, fmt.Errorf("%w: %s is the address of member %s", ErrRefused, p.Addr, srv.ID)
		}
	}
	timeout, err := s.timeout(ctx)
	if err != nil {
		return 0, err
	}
	f := s.raft.AddVoter(raft.ServerID(p.ID), raft.ServerAddress(p.Addr), 0, timeout)
	if err := wait(ctx, f); err != nil {
		return 0, raftErr(err)
	}
	s.cfg.Log.Info("added a voter to the raft cluster", "node", p.ID, "addr", p.Addr)
	s.clearRemoved(ctx, p.ID)
	return f.Index(), nil
}

// removeServer removes id on this leader and returns the change's index.
func (s *Store) removeServer(ctx context.Context, id string) (uint64, error) {
	if !s.isMember(id) {
		return 0, fmt.Errorf("%w: %w: no member %q", ErrRefused, engine.ErrNotFound, id)
	}
	// Recorded first: once removed, a leader removing itself is no member
	// to write anything. A record of a member still there is harmless.
	s.markRemoved(ctx, id)
	timeout, err := s.timeout(ctx)
	if err != nil {
		return 0, err
	}
	f := s.raft.RemoveServer(raft.ServerID(id), 0, timeout)
	if err := wait(ctx, f); err != nil {
		return 0, raftErr(err)
	}
	s.cfg.Log.Info("removed a member from the raft cluster", "node", id)
	return f.Index(), nil
}

// rackOnly refuses membership changes on a lone appliance (no peer port).
func (s *Store) rackOnly() error {
	if s.net == nil {
		return fmt.Errorf("%w: this appliance is a one-voter cluster of its own: configure [cluster] to make it a rack member", ErrRefused)
	}
	return nil
}

func checkPeer(p Peer) error {
	if err := rackca.CheckNodeID(p.ID); err != nil {
		return fmt.Errorf("%w: %w: %w", ErrRefused, engine.ErrInvalid, err)
	}
	host, port, err := net.SplitHostPort(p.Addr)
	if err != nil || net.ParseIP(host) == nil || port == "" || port == "0" {
		return fmt.Errorf("%w: %w: address %q is not ip:port", ErrRefused, engine.ErrInvalid, p.Addr)
	}
	return nil
}

// joinInterval is the pause between a new node's join attempts.
const joinInterval = time.Second

// goJoin asks the member at cfg.Join to add this node, until it is a
// member or the node closes.
func (s *Store) goJoin() {
	self := Peer{ID: string(s.id), Addr: string(s.trans.LocalAddr())}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for attempt := 0; ; attempt++ {
			if s.isMember(self.ID) {
				return
			}
			ctx, cancel := context.WithTimeout(s.life, s.cfg.ApplyTimeout)
			_, err := s.call(ctx, s.cfg.Join, rpcRequest{Op: opJoin, ID: self.ID, Addr: self.Addr})
			cancel()
			if err == nil {
				s.cfg.Log.Info("joined the raft cluster", "node", self.ID, "via", s.cfg.Join)
				return
			}
			s.cfg.Log.Warn("asking to join the raft cluster failed; retrying", "node", self.ID, "via", s.cfg.Join, "err", err)
			select {
			case <-s.stop:
				return
			case <-time.After(joinInterval):
			}
		}
	}()
}

// MemberStats is one member's raft state, as it reports it.
type MemberStats struct {
	ID           string `json:"id"`
	State        string `json:"state"` // Leader, Follower, Candidate, Shutdown
	Term         uint64 `json:"term"`
	LastIndex    uint64 `json:"last_index"`
	CommitIndex  uint64 `json:"commit_index"`
	AppliedIndex uint64 `json:"applied_index"`
	// LastContact is how long ago a follower last heard from the leader
	// (raft's "last_contact": "0" on the leader, "never").
	LastContact string `json:"last_contact,omitempty"`
}

func (s *Store) memberStats() MemberStats {
	return MemberStats{
		ID: string(s.id), State: s.raft.State().String(), Term: s.raft.CurrentTerm(),
		LastIndex: s.raft.LastIndex(), CommitIndex: s.raft.CommitIndex(), AppliedIndex: s.raft.AppliedIndex(),
		LastContact: s.raft.Stats()["last_contact"],
	}
}

// Member is one server of the configuration with its state.
type Member struct {
	ID      string `json:"id"`
	Address string `json:"address"`
	Voter   bool   `json:"voter"`
	// Stats is what the member reported; nil when it did not answer.
	Stats *MemberStats `json:"stats,omitempty"`
	// Lag is how many entries the member's applied index is behind the
	// leader's commit index (0 when either is unknown).
	Lag   uint64 `json:"lag"`
	Error string `json:"error,omitempty"`
}

// Status is the cluster as one node sees it.
type Status struct {
	Node          string   `json:"node"`
	Leader        string   `json:"leader"`
	LeaderAddress string   `json:"leader_address"`
	Term          uint64   `json:"term"`
	CommitIndex   uint64   `json:"commit_index"`
	AppliedIndex  uint64   `json:"applied_index"`
	Members       []Member `json:"members"`
}

// statsTimeout bounds asking one member for its stats.
const statsTimeout = 2 * time.Second

// Status asks every member for its state and reports them with their lag
// behind the leader.
func (s *Store) Status(ctx context.Context) (Status, error) {
	servers, err := s.members.servers()
	if err != nil {
		return Status{}, err
	}
	addr, leader := s.raft.LeaderWithID()
	self := s.memberStats()
	st := Status{
		Node: string(s.id), Leader: string(leader), LeaderAddress: string(addr),
		Term: self.Term, CommitIndex: self.CommitIndex, AppliedIndex: self.AppliedIndex,
	}
	st.Members = make([]Member, len(servers))
	var wg sync.WaitGroup
	for i, srv := range servers {
		m := &st.Members[i]
		*m = Member{ID: string(srv.ID), Address: string(srv.Address), Voter: srv.Suffrage == raft.Voter}
		if srv.ID == s.id {
			m.Stats = &self
			continue
		}
		wg.Go(func() { s.askStats(ctx, m) })
	}
	wg.Wait()
	var commit uint64
	for _, m := range st.Members {
		if m.ID == st.Leader && m.Stats != nil {
			commit = m.Stats.CommitIndex
		}
	}
	for i := range st.Members {
		if m := &st.Members[i]; m.Stats != nil && commit > m.Stats.AppliedIndex {
			m.Lag = commit - m.Stats.AppliedIndex
		}
	}
	return st, nil
}

func (s *Store) askStats(ctx context.Context, m *Member) {
	if s.pool == nil {
		m.Error = "unreachable: no peer port"
		return
	}
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	resp, err := s.call(ctx, m.Address, rpcRequest{Op: opStats})
	switch {
	case err != nil:
		m.Error = "unreachable: " + err.Error()
	case resp.Stats == nil:
		m.Error = "no stats in the answer"
	default:
		m.Stats = resp.Stats
	}
}
