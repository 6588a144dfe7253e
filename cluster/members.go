package cluster

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"

	"github.com/rackboot/rackboot/cluster/tlsnet"
)

// ErrNotMember: a peer that is not in the raft configuration.
var ErrNotMember = errors.New("cluster: not a member of this cluster")

// memberCache answers who the members are from raft's latest
// configuration.
type memberCache struct {
	r atomic.Pointer[raft.Raft] // set once raft runs
}

// servers is the latest configuration's servers.
func (m *memberCache) servers() ([]raft.Server, error) {
	r := m.r.Load()
	if r == nil {
		return nil, fmt.Errorf("cluster: configuration: raft is starting")
	}
	f := r.GetConfiguration()
	if err := f.Error(); err != nil {
		return nil, fmt.Errorf("cluster: configuration: %w", err)
	}
	return f.Configuration().Servers, nil
}

// admit lets a verified rack node open a connection: RPCs always (each
// request is checked on its own), raft only for members, or for anyone
// while this node has no configuration (it is waiting to be added).
func (s *Store) admit(peer, proto string) error {
	if proto != tlsnet.ProtoRaft {
		return nil
	}
	servers, err := s.members.servers()
	if err != nil {
		return err
	}
	if len(servers) == 0 {
		return nil
	}
	for _, srv := range servers {
		if string(srv.ID) == peer {
			return nil
		}
	}
	return fmt.Errorf("%w (removed, or never added)", ErrNotMember)
}

// isMember reports whether peer is in the latest configuration.
func (s *Store) isMember(peer string) bool {
	servers, err := s.members.servers()
	if err != nil {
		return false
	}
	for _, srv := range servers {
		if string(srv.ID) == peer {
			return true
		}
	}
	return false
}

// expect is the node id that should answer at addr, "" when unknown.
func (s *Store) expect(addr string) string {
	servers, err := s.members.servers()
	if err != nil {
		return ""
	}
	for _, srv := range servers {
		if string(srv.Address) == addr {
			return string(srv.ID)
		}
	}
	return ""
}

// configWatch remembers the last committed configuration, to close the
// connections of members removed from it.
type configWatch struct {
	mu   sync.Mutex
	last map[raft.ServerID]bool
}

// configChanged is called with each committed configuration.
func (s *Store) configChanged(c raft.Configuration) {
	now := map[raft.ServerID]bool{}
	for _, srv := range c.Servers {
		now[srv.ID] = true
	}
	s.cw.mu.Lock()
	last := s.cw.last
	s.cw.last = now
	s.cw.mu.Unlock()
	for id := range last {
		if now[id] {
			continue
		}
		if id == s.id {
			s.cfg.Log.Warn("this node was removed from the raft cluster", "node", string(id))
			continue
		}
		s.cfg.Log.Info("member removed from the raft cluster: closing its connections", "node", string(id))
		if s.net != nil {
			s.net.Revoke(string(id))
		}
	}
}

// leaderWatch counts leader changes, so that retry loops wake up when a
// leader is elected instead of waiting out their backoff.
type leaderWatch struct {
	r    *raft.Raft
	obs  *raft.Observer
	gen  *progress
	ch   chan raft.Observation
	done chan struct{}
}

func newLeaderWatch(r *raft.Raft) *leaderWatch {
	w := &leaderWatch{r: r, gen: newProgress(), ch: make(chan raft.Observation, 16), done: make(chan struct{})}
	w.obs = raft.NewObserver(w.ch, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	r.RegisterObserver(w.obs)
	go w.run()
	return w
}

func (w *leaderWatch) run() {
	var n uint64
	for {
		select {
		case <-w.ch:
			n++
			w.gen.advance(n)
		case <-w.done:
			return
		}
	}
}

// current is the number of leader changes seen.
func (w *leaderWatch) current() uint64 { return w.gen.get() }

func (w *leaderWatch) close() {
	w.r.DeregisterObserver(w.obs)
	close(w.done)
}

// backoff is the pause before the next attempt of a retry loop: doubling
// from 10 ms up to 500 ms.
func backoff(attempt int) time.Duration {
	d := 10 * time.Millisecond << min(attempt, 6)
	return min(d, 500*time.Millisecond)
}
