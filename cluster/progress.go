package cluster

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"sync"

	"github.com/rackboot/rackboot/engine"
)

// progress is an index that only grows, with waiters.
type progress struct {
	mu    sync.Mutex
	index uint64
	ch    chan struct{} // closed at the next advance; nil when nobody waits
	err   error         // set by fail: the index will not grow again
}

func newProgress() *progress { return &progress{} }

// advance raises the index to i (a lower i changes nothing).
func (p *progress) advance(i uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i <= p.index {
		return
	}
	p.index = i
	if p.ch != nil {
		close(p.ch)
		p.ch = nil
	}
}

// fail stops the index for good: waits for a higher index return err.
func (p *progress) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.err = err
	if p.ch != nil {
		close(p.ch)
		p.ch = nil
	}
}

// get returns the index.
func (p *progress) get() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.index
}

// changed returns a channel closed once the index is above i.
func (p *progress) changed(i uint64) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.index > i || p.err != nil {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	if p.ch == nil {
		p.ch = make(chan struct{})
	}
	return p.ch
}

// wait returns once the index is at least i, or ctx's error.
func (p *progress) wait(ctx context.Context, i uint64) error {
	for {
		p.mu.Lock()
		if p.index >= i {
			p.mu.Unlock()
			return nil
		}
		if p.err != nil {
			p.mu.Unlock()
			return p.err
		}
		if p.ch == nil {
			p.ch = make(chan struct{})
		}
		ch := p.ch
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// tagLen is the length of a forwarded entry's tag: this process's random
// nonce and a sequence number.
const tagLen = 24

// waiters hands the results of this node's forwarded writes to the
// callers waiting for them. A forwarded entry's log extensions hold a tag
// naming this process and the write; the FSM delivers the entry's result
// when it applies it here.
type waiters struct {
	nonce [16]byte
	mu    sync.Mutex
	seq   uint64
	wait  map[uint64]chan engine.Result
}

func newWaiters() *waiters {
	w := &waiters{wait: map[uint64]chan engine.Result{}}
	_, _ = rand.Read(w.nonce[:])
	return w
}

// add registers a write and returns its tag and result channel.
func (w *waiters) add() ([]byte, uint64, <-chan engine.Result) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	ch := make(chan engine.Result, 1)
	w.wait[w.seq] = ch
	tag := make([]byte, tagLen)
	copy(tag, w.nonce[:])
	binary.BigEndian.PutUint64(tag[16:], w.seq)
	return tag, w.seq, ch
}

// remove forgets a write.
func (w *waiters) remove(seq uint64) {
	w.mu.Lock()
	delete(w.wait, seq)
	w.mu.Unlock()
}

// deliver gives res to the write tag names, when it is one of ours.
func (w *waiters) deliver(tag []byte, res engine.Result) {
	if len(tag) != tagLen || [16]byte(tag[:16]) != w.nonce {
		return
	}
	seq := binary.BigEndian.Uint64(tag[16:])
	w.mu.Lock()
	ch, ok := w.wait[seq]
	delete(w.wait, seq)
	w.mu.Unlock()
	if ok {
		ch <- res
	}
}
