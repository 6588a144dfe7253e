package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rackboot/rackboot/engine"
)

// A full data directory cannot hold the replicated log: raft fails to
// store entries (and, leading, steps down, only to be elected again while
// its log is as long as the others'). diskGuard watches the free space of
// data_dir; while it is full the appliance says so once and gives up the
// leader's duties towards the rack (service address, DHCP) even when raft
// briefly makes it leader, and takes them up again once there is room.
const (
	diskFullBelow = 4 << 20 // bytes free under which the disk counts as full
	diskFreeAbove = 8 << 20 // ... and above which it counts as usable again
	diskInterval  = time.Second
)

// diskGuard tracks whether data_dir's file system is full. Create it with
// newDiskGuard and run it.
type diskGuard struct {
	dir  string
	log  *slog.Logger
	free func(dir string) (uint64, error)

	mu      sync.Mutex
	full    bool
	changed chan struct{} // closed and replaced at each change
}

func newDiskGuard(dir string, log *slog.Logger) *diskGuard {
	return &diskGuard{dir: dir, log: log, free: freeBytes, changed: make(chan struct{})}
}

// freeBytes is what an unprivileged writer may still use on dir's file
// system.
func freeBytes(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// run checks every interval until ctx is done.
func (g *diskGuard) run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		g.check()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// check reads the free space once and records a change.
func (g *diskGuard) check() {
	free, err := g.free(g.dir)
	if err != nil {
		g.log.Warn("cannot read the data directory's free space", "data_dir", g.dir, "err", err)
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case !g.full && free < diskFullBelow:
		g.log.Error("data directory full: this appliance cannot store the replicated log and stops taking part "+
			"(no service address, no DHCP) until space is freed", "data_dir", g.dir, "free_bytes", free)
	case g.full && free > diskFreeAbove:
		g.log.Info("data directory has room again: this appliance takes part again", "data_dir", g.dir, "free_bytes", free)
	default:
		return
	}
	g.full = !g.full
	close(g.changed)
	g.changed = make(chan struct{})
}

// state is whether the disk is full now and a channel closed at the next
// change.
func (g *diskGuard) state() (bool, <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.full, g.changed
}

// guardedStore is a store whose leadership, for the rack-wide duties,
// also needs a data directory with room.
type guardedStore struct {
	engine.Store
	g *diskGuard
}

// LeaderChanges is the store's leadership while the disk has room, and
// false while it is full.
func (s guardedStore) LeaderChanges(ctx context.Context) <-chan bool {
	out := make(chan bool, 1)
	in := s.Store.LeaderChanges(ctx)
	go func() {
		defer close(out)
		leader, sent, first := false, false, true
		for {
			full, changed := s.g.state()
			if v := leader && !full; first || v != sent {
				latestBool(out, v)
				sent, first = v, false
			}
			select {
			case v, ok := <-in:
				if !ok {
					return
				}
				leader = v
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// latestBool puts v in c (capacity 1), replacing an unread older value.
func latestBool(c chan bool, v bool) {
	select {
	case <-c:
	default:
	}
	c <- v
}

// handOverStore is the part of the state store handOverWhileFull uses
// (*cluster.Store).
type handOverStore interface {
	LeaderChanges(ctx context.Context) <-chan bool
	HandOver() error
}

// handOverWhileFull passes raft's leadership on whenever this node leads
// while its data directory is full, and tries again every interval until
// it no longer leads or has room: a full node can still win an election
// (its log is as long as the others'), and once its log store finds room
// for the election's no-op entry in pages it already holds, it would
// keep leading without doing the leader's duties, and no other node would.
func (g *diskGuard) handOverWhileFull(ctx context.Context, st handOverStore, interval time.Duration) {
	leaders := st.LeaderChanges(ctx)
	leader := false
	for {
		full, changed := g.state()
		var retry <-chan time.Time
		if leader && full {
			if err := st.HandOver(); err != nil {
				g.log.Warn("data directory full: could not hand the raft leadership over", "data_dir", g.dir, "err", err)
			} else {
				g.log.Info("data directory full: handed the raft leadership over", "data_dir", g.dir)
			}
			retry = time.After(interval)
		}
		select {
		case v, ok := <-leaders:
			if !ok {
				return
			}
			leader = v
		case <-changed:
		case <-retry:
		case <-ctx.Done():
			return
		}
	}
}
