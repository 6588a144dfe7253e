package cluster

import (
	"context"
	"sync"

	"github.com/hashicorp/raft"
)

// leaderFeed fans raft's leadership signal out to subscribers, each of
// which sees the current value first and then only the latest change.
type leaderFeed struct {
	mu      sync.Mutex
	current bool
	subs    map[chan bool]struct{}
	stop    chan struct{}
	done    chan struct{}
}

func newLeaderFeed(r *raft.Raft) *leaderFeed {
	f := &leaderFeed{
		current: r.State() == raft.Leader,
		subs:    map[chan bool]struct{}{},
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go f.run(r.LeaderCh())
	return f
}

func (f *leaderFeed) run(ch <-chan bool) {
	defer close(f.done)
	for {
		select {
		case v := <-ch:
			f.set(v)
		case <-f.stop:
			f.set(false)
			f.mu.Lock()
			for c := range f.subs {
				delete(f.subs, c)
				close(c)
			}
			f.mu.Unlock()
			return
		}
	}
}

func (f *leaderFeed) set(v bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.current = v
	for c := range f.subs {
		latest(c, v)
	}
}

// latest puts v in c (capacity 1), replacing an unread older value.
func latest(c chan bool, v bool) {
	select {
	case <-c:
	default:
	}
	c <- v
}

func (f *leaderFeed) subscribe(ctx context.Context) <-chan bool {
	c := make(chan bool, 1)
	f.mu.Lock()
	select {
	case <-f.done:
		close(c)
		f.mu.Unlock()
		return c
	default:
	}
	c <- f.current
	f.subs[c] = struct{}{}
	f.mu.Unlock()
	context.AfterFunc(ctx, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.subs[c]; ok {
			delete(f.subs, c)
			close(c)
		}
	})
	return c
}

func (f *leaderFeed) close() {
	select {
	case <-f.stop:
	default:
		close(f.stop)
	}
	<-f.done
}
