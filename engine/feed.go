package engine

import (
	"context"
	"sync"
	"sync/atomic"
)

// feedBuffer is how many changes a subscriber may lag behind before it is
// dropped.
const feedBuffer = 8192

// feed fans changes out to subscribers without ever blocking the applier:
// a subscriber whose buffer is full is dropped (its channel closed).
type feed struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
	n    atomic.Int32 // len(subs), read without the lock
}

// active reports whether anyone listens; when nobody does, commands skip
// building their changes.
func (f *feed) active() bool { return f.n.Load() > 0 }

type subscriber struct {
	ch chan Change
}

func (f *feed) subscribe(ctx context.Context) <-chan Change {
	s := &subscriber{ch: make(chan Change, feedBuffer)}
	f.mu.Lock()
	f.subs[s] = struct{}{}
	f.n.Add(1)
	f.mu.Unlock()
	context.AfterFunc(ctx, func() { f.drop(s) })
	return s.ch
}

// drop removes s and closes its channel, once.
func (f *feed) drop(s *subscriber) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dropLocked(s)
}

func (f *feed) dropLocked(s *subscriber) {
	if _, ok := f.subs[s]; ok {
		delete(f.subs, s)
		f.n.Add(-1)
		close(s.ch)
	}
}

func (f *feed) publish(changes []Change) {
	if len(changes) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for s := range f.subs {
		if !s.send(changes) {
			f.dropLocked(s)
		}
	}
}

// send queues changes without blocking; false when the buffer is full.
func (s *subscriber) send(changes []Change) bool {
	for _, c := range changes {
		select {
		case s.ch <- c:
		default:
			return false
		}
	}
	return true
}

// Queued takes the changes already waiting on sub, without blocking: a
// subscriber that reacts to a change covers those with the same pass.
func Queued(sub <-chan Change) []Change {
	var chs []Change
	for {
		select {
		case ch, ok := <-sub:
			if !ok {
				return chs
			}
			chs = append(chs, ch)
		default:
			return chs
		}
	}
}
