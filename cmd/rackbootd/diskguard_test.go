package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/enginetest"
)

// TestDiskGuardGivesUpDuties: a leader whose data directory fills up stops
// counting as leader for the rack duties and says so once; with room
// again it leads again and says that too.
func TestDiskGuardGivesUpDuties(t *testing.T) {
	var free atomic.Uint64
	free.Store(1 << 30)
	var logs bytes.Buffer
	g := newDiskGuard("/data", slog.New(slog.NewTextHandler(&logs, nil)))
	g.free = func(string) (uint64, error) { return free.Load(), nil }
	st := guardedStore{Store: enginetest.NewStore(), g: g}
	changes := st.LeaderChanges(t.Context())
	next := func(want bool) {
		t.Helper()
		select {
		case v := <-changes:
			if v != want {
				t.Fatalf("leadership for the duties = %v, want %v", v, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no leadership change to %v", want)
		}
	}
	// The first value may be the false sent before the store's own.
	if v := <-changes; !v {
		next(true)
	}
	free.Store(1 << 20)
	g.check()
	g.check()
	next(false)
	free.Store(6 << 20) // between the thresholds: still full
	g.check()
	free.Store(1 << 30)
	g.check()
	next(true)
	out := logs.String()
	if strings.Count(out, "data directory full") != 1 || strings.Count(out, "has room again") != 1 {
		t.Fatalf("the guard should say each change once:\n%s", out)
	}
}

// fakeHandOver is a store whose leadership the test sets and that counts
// the hand-overs asked of it.
type fakeHandOver struct {
	leaders  chan bool
	handOver chan struct{}
}

func (f *fakeHandOver) LeaderChanges(context.Context) <-chan bool { return f.leaders }
func (f *fakeHandOver) HandOver() error {
	select {
	case f.handOver <- struct{}{}:
	default: // retries beyond the buffer need not be counted
	}
	return nil
}

// TestDiskGuardHandsLeadershipOver: a node that leads while its data
// directory is full passes raft's leadership on (and again while it still
// leads), so the rack gets a leader that does the duties; a leader with
// room, or a full follower, keeps what it has.
func TestDiskGuardHandsLeadershipOver(t *testing.T) {
	var free atomic.Uint64
	free.Store(1 << 30)
	g := newDiskGuard("/data", slog.New(slog.DiscardHandler))
	g.free = func(string) (uint64, error) { return free.Load(), nil }
	g.check()
	st := &fakeHandOver{leaders: make(chan bool), handOver: make(chan struct{}, 8)}
	go g.handOverWhileFull(t.Context(), st, time.Millisecond)
	wantHandOver := func(want bool) {
		t.Helper()
		select {
		case <-st.handOver:
			if !want {
				t.Fatal("handed the leadership over with room on the disk, or as a follower")
			}
		case <-time.After(200 * time.Millisecond): // nothing to wait for when none is due
			if want {
				t.Fatal("a full leader did not hand the leadership over")
			}
		}
	}
	st.leaders <- true // leading, with room
	wantHandOver(false)
	free.Store(1 << 20)
	g.check() // full while leading
	wantHandOver(true)
	wantHandOver(true) // still leading: tried again
	st.leaders <- false
	for len(st.handOver) > 0 {
		<-st.handOver
	}
	wantHandOver(false)
}
