package cluster

import (
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"
)

// Stats are counters and gauges of a node, for metrics.
type Stats struct {
	LastIndex    uint64 // last raft log index
	AppliedIndex uint64 // last index applied to the model
	CommitIndex  uint64 // last index known committed
	Commands     uint64 // command entries applied since Open
	State        string // Leader, Follower, Candidate or Shutdown
	Term         uint64 // current raft term
	// LastSnapshot is when the newest snapshot on disk was taken (zero:
	// none yet); LastSnapshotIndex its log index.
	LastSnapshot      time.Time
	LastSnapshotIndex uint64
	// ApplyLatency is how long Apply took on this node, submit to
	// result, forwarding included.
	ApplyLatency Histogram
	// Voters is how many voters the latest configuration has.
	Voters int
	// LastContact is when a follower last heard from its leader (zero on
	// the leader, and before any contact).
	LastContact time.Time
}

// Histogram is a cumulative latency histogram in seconds: Buckets[i]
// counts the observations of at most Bounds[i].
type Histogram struct {
	Bounds  []float64
	Buckets []uint64
	Count   uint64
	Sum     float64
}

// Stats returns the node's counters.
func (s *Store) Stats() Stats {
	st := Stats{
		LastIndex: s.raft.LastIndex(), AppliedIndex: s.raft.AppliedIndex(), Commands: s.fsm.commands.Load(),
		State: s.raft.State().String(), Term: s.raft.CurrentTerm(), ApplyLatency: s.applyLat.histogram(),
	}
	st.CommitIndex, _ = strconv.ParseUint(s.raft.Stats()["commit_index"], 10, 64)
	st.LastSnapshot, st.LastSnapshotIndex = s.lastSnapshot()
	if servers, err := s.members.servers(); err == nil {
		for _, srv := range servers {
			if srv.Suffrage == raft.Voter {
				st.Voters++
			}
		}
	}
	if s.raft.State() != raft.Leader {
		st.LastContact = s.raft.LastContact()
	}
	return st
}

// lastSnapshot reads the newest snapshot's time from its ID, which the
// file snapshot store makes term-index-milliseconds.
func (s *Store) lastSnapshot() (time.Time, uint64) {
	if s.snaps == nil {
		return time.Time{}, 0
	}
	metas, err := s.snaps.List()
	if err != nil || len(metas) == 0 {
		return time.Time{}, 0
	}
	m := metas[0] // newest first
	parts := strings.Split(m.ID, "-")
	ms, err := strconv.ParseInt(parts[len(parts)-1], 10, 64)
	if err != nil {
		return time.Time{}, m.Index
	}
	return time.UnixMilli(ms), m.Index
}

// latencyBounds are the apply latency buckets, in seconds: a local
// commit takes milliseconds, a forwarded one or an election seconds.
var latencyBounds = [...]float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// latency is a lock-free histogram over latencyBounds.
type latency struct {
	buckets [len(latencyBounds)]atomic.Uint64
	count   atomic.Uint64
	sumNS   atomic.Uint64
}

// since records the time from start to now.
func (l *latency) since(start time.Time) {
	d := time.Since(start)
	sec := d.Seconds()
	for i, b := range latencyBounds {
		if sec <= b {
			l.buckets[i].Add(1)
			break
		}
	}
	l.sumNS.Add(uint64(max(d, 0)))
	l.count.Add(1)
}

// histogram returns the cumulative counts.
func (l *latency) histogram() Histogram {
	h := Histogram{Bounds: slices.Clone(latencyBounds[:]), Buckets: make([]uint64, len(latencyBounds))}
	var cum uint64
	for i := range latencyBounds {
		cum += l.buckets[i].Load()
		h.Buckets[i] = cum
	}
	h.Count = l.count.Load()
	h.Sum = float64(l.sumNS.Load()) / float64(time.Second)
	if h.Count < cum { // an observation landed between the loads
		h.Count = cum
	}
	return h
}
