package main

import (
	"bytes"
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
