package metrics

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rackboot/rackboot/cluster"
)

// RaftSource is what the raft collector reads: *cluster.Store.
type RaftSource interface{ Stats() cluster.Stats }

type raftCollector struct {
	src                                    RaftSource
	last, applied, commit, term, commands  *prometheus.Desc
	state, snapTime, snapIndex, applyDelay *prometheus.Desc
	voters, contact                        *prometheus.Desc
}

// raftStates are the values of rackboot_raft_state's label.
func raftStates() []string { return []string{"leader", "follower", "candidate", "shutdown"} }

// NewRaft returns the collector of this node's raft state.
func NewRaft(src RaftSource) prometheus.Collector {
	name := func(n string) string { return prometheus.BuildFQName(namespace, "raft", n) }
	return &raftCollector{
		src:       src,
		last:      desc(name("last_index"), "Index of the last entry of the raft log."),
		applied:   desc(name("applied_index"), "Index of the last raft entry applied to the state."),
		commit:    desc(name("commit_index"), "Index of the last raft entry known to be committed."),
		term:      desc(name("term"), "The node's current raft term; a rising term means elections."),
		commands:  desc(name("commands_applied_total"), "Commands applied to the state since start (a batch of leases is one)."),
		state:     prometheus.NewDesc(name("state"), "1 for the node's current raft state (leader, follower, candidate, shutdown), 0 for the others.", []string{"state"}, nil),
		snapTime:  desc(name("last_snapshot_timestamp_seconds"), "When the newest raft snapshot on disk was taken (Unix time); absent before the first. Its age is time() minus this."),
		snapIndex: desc(name("last_snapshot_index"), "Log index of the newest raft snapshot on disk."),
		voters:    desc(name("voters"), "Voters in the latest raft configuration (the rack's appliances; 1 alone)."),
		contact: desc(name("leader_last_contact_timestamp_seconds"),
			"When this follower last heard from its leader (Unix time); absent on the leader. A follower cut off from the leader shows an old value."),
		applyDelay: desc(name("apply_duration_seconds"),
			"Time a write took from submission to its result on this node: commit on a quorum (forwarded to the leader from a follower) and apply."),
	}
}

func (c *raftCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.last, c.applied, c.commit, c.term, c.commands, c.state, c.snapTime, c.snapIndex, c.applyDelay, c.voters, c.contact} {
		ch <- d
	}
}

func (c *raftCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.Stats()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(c.last, float64(s.LastIndex))
	gauge(c.applied, float64(s.AppliedIndex))
	gauge(c.commit, float64(s.CommitIndex))
	gauge(c.term, float64(s.Term))
	ch <- prometheus.MustNewConstMetric(c.commands, prometheus.CounterValue, float64(s.Commands))
	for _, st := range raftStates() {
		v := 0.0
		if strings.EqualFold(s.State, st) {
			v = 1
		}
		gauge(c.state, v, st)
	}
	if !s.LastSnapshot.IsZero() {
		gauge(c.snapTime, float64(s.LastSnapshot.UnixMilli())/1000)
		gauge(c.snapIndex, float64(s.LastSnapshotIndex))
	}
	gauge(c.voters, float64(s.Voters))
	if !s.LastContact.IsZero() {
		gauge(c.contact, float64(s.LastContact.UnixMilli())/1000)
	}
	h := s.ApplyLatency
	buckets := make(map[float64]uint64, len(h.Bounds))
	for i, b := range h.Bounds {
		buckets[b] = h.Buckets[i]
	}
	ch <- prometheus.MustNewConstHistogram(c.applyDelay, h.Count, h.Sum, buckets)
}
