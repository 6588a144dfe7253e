package cluster

import (
	"testing"
	"time"
)

// TestStats: a one-voter node reports itself leader with a term, commit
// and applied indexes that cover the writes, their apply latencies, and the
// time and index of a snapshot once one is taken.
func TestStats(t *testing.T) {
	s := open(t, testConfig(t.TempDir()))
	defer s.Close()
	if st := s.Stats(); !st.LastSnapshot.IsZero() || st.LastSnapshotIndex != 0 {
		t.Errorf("a new node has a snapshot: %+v", st)
	}
	write(t, s, 1, 2) // six commands
	before := time.Now()
	if err := s.Snapshot(); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.State != "Leader" || st.Term == 0 {
		t.Errorf("state %q term %d, want Leader and a term", st.State, st.Term)
	}
	if st.CommitIndex < st.AppliedIndex || st.AppliedIndex < 6 || st.LastIndex < st.AppliedIndex {
		t.Errorf("indexes: last %d commit %d applied %d", st.LastIndex, st.CommitIndex, st.AppliedIndex)
	}
	h := st.ApplyLatency
	if h.Count != 6 || len(h.Buckets) != len(h.Bounds) || h.Buckets[len(h.Buckets)-1] > h.Count || h.Sum <= 0 {
		t.Errorf("apply latency %+v, want 6 observations", h)
	}
	if st.LastSnapshotIndex < 6 || st.LastSnapshot.Before(before.Add(-time.Second)) || st.LastSnapshot.After(time.Now()) {
		t.Errorf("snapshot index %d at %v, want >= 6 taken after %v", st.LastSnapshotIndex, st.LastSnapshot, before)
	}
}
