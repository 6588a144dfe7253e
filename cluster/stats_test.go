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
	if st.Voters != 1 || !st.LastContact.IsZero() {
		t.Errorf("voters %d, last contact %v; want 1 and none (the leader)", st.Voters, st.LastContact)
	}
	h := st.ApplyLatency
	if h.Count != 6 || len(h.Buckets) != len(h.Bounds) || h.Buckets[len(h.Buckets)-1] > h.Count || h.Sum <= 0 {
		t.Errorf("apply latency %+v, want 6 observations", h)
	}
	if st.LastSnapshotIndex < 6 || st.LastSnapshot.Before(before.Add(-time.Second)) || st.LastSnapshot.After(time.Now()) {
		t.Errorf("snapshot index %d at %v, want >= 6 taken after %v", st.LastSnapshotIndex, st.LastSnapshot, before)
	}
}

// TestRackStats: on a rack of three every node counts three voters and
// the followers report when they last heard from the leader. (No write is
// forwarded here: closing a rack right after one can hang Close on the
// nudger's barrier, a problem of its own.)
func TestRackStats(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	ld := r.leader()
	writeIE(t, ld.st, 1)
	if st := ld.st.Stats(); st.State != "Leader" || st.Voters != 3 || !st.LastContact.IsZero() || st.ApplyLatency.Count != 1 {
		t.Errorf("leader: state %s, voters %d, last contact %v, %d apply latencies", st.State, st.Voters, st.LastContact, st.ApplyLatency.Count)
	}
	for _, nd := range r.followers(ld) {
		st := nd.st.Stats()
		if st.State != "Follower" || st.Voters != 3 || st.LastContact.IsZero() {
			t.Errorf("%s: state %s, voters %d, last contact %v", nd.id, st.State, st.Voters, st.LastContact)
		}
	}
}
