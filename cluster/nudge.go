package cluster

import (
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// nudgeTimeout bounds one nudge's barrier.
const nudgeTimeout = 5 * time.Second

// nudger tells followers promptly that a forwarded entry is committed.
// hashicorp/raft carries the commit index on the next AppendEntries only,
// which an idle leader sends every CommitTimeout; the follower that
// forwarded a write waits to apply it. A nudge appends a barrier entry
// (not seen by the FSM) whose replication carries the commit index.
// Nudges coalesce: at most one barrier is in flight, and one more follows
// when writes were forwarded meanwhile.
type nudger struct {
	r       *raft.Raft
	stop    <-chan struct{}
	wg      *sync.WaitGroup
	mu      sync.Mutex
	pending bool
	running bool
}

func (n *nudger) nudge() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.pending = true
	if n.running {
		return
	}
	select {
	case <-n.stop:
		return
	default:
	}
	n.running = true
	n.wg.Add(1)
	go n.run()
}

func (n *nudger) run() {
	defer n.wg.Done()
	for {
		n.mu.Lock()
		if !n.pending {
			n.running = false
			n.mu.Unlock()
			return
		}
		n.pending = false
		n.mu.Unlock()
		if !n.barrier() {
			n.mu.Lock()
			n.running = false
			n.mu.Unlock()
			return
		}
	}
}

// barrier appends a barrier and waits for it to commit, or until the node
// stops (false). A barrier raft accepted just before it shut down may
// never be answered: waiting for it would hold Close up for good. The
// goroutine left waiting then ends if raft ever answers.
func (n *nudger) barrier() bool {
	f := n.r.Barrier(nudgeTimeout)
	done := make(chan struct{})
	go func() {
		_ = f.Error()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-n.stop:
		return false
	}
}
