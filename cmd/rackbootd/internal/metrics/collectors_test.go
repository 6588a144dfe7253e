package metrics

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// FixedRaft is a RaftSource with fixed stats.
type FixedRaft cluster.Stats

func (f FixedRaft) Stats() cluster.Stats { return cluster.Stats(f) }

// TestRaftCollector: the node's state is one series set to 1, the
// snapshot time is Unix seconds, the apply latency a histogram.
func TestRaftCollector(t *testing.T) {
	src := FixedRaft{
		LastIndex: 42, AppliedIndex: 41, CommitIndex: 41, Commands: 30, State: "Follower", Term: 3,
		LastSnapshot: time.Unix(1700000000, 500e6), LastSnapshotIndex: 40, Voters: 3, LastContact: time.Unix(1700000100, 0),
		ApplyLatency: cluster.Histogram{Bounds: []float64{0.01, 0.1}, Buckets: []uint64{2, 3}, Count: 4, Sum: 1.25},
	}
	want := `
# HELP rackboot_raft_state 1 for the node's current raft state (leader, follower, candidate, shutdown), 0 for the others.
# TYPE rackboot_raft_state gauge
rackboot_raft_state{state="candidate"} 0
rackboot_raft_state{state="follower"} 1
rackboot_raft_state{state="leader"} 0
rackboot_raft_state{state="shutdown"} 0
# HELP rackboot_raft_term The node's current raft term; a rising term means elections.
# TYPE rackboot_raft_term gauge
rackboot_raft_term 3
# HELP rackboot_raft_commit_index Index of the last raft entry known to be committed.
# TYPE rackboot_raft_commit_index gauge
rackboot_raft_commit_index 41
# HELP rackboot_raft_last_snapshot_timestamp_seconds When the newest raft snapshot on disk was taken (Unix time); absent before the first. Its age is time() minus this.
# TYPE rackboot_raft_last_snapshot_timestamp_seconds gauge
rackboot_raft_last_snapshot_timestamp_seconds 1.7000000005e+09
# HELP rackboot_raft_voters Voters in the latest raft configuration (the rack's appliances; 1 alone).
# TYPE rackboot_raft_voters gauge
rackboot_raft_voters 3
# HELP rackboot_raft_leader_last_contact_timestamp_seconds When this follower last heard from its leader (Unix time); absent on the leader. A follower cut off from the leader shows an old value.
# TYPE rackboot_raft_leader_last_contact_timestamp_seconds gauge
rackboot_raft_leader_last_contact_timestamp_seconds 1.7000001e+09
# HELP rackboot_raft_apply_duration_seconds Time a write took from submission to its result on this node: commit on a quorum (forwarded to the leader from a follower) and apply.
# TYPE rackboot_raft_apply_duration_seconds histogram
rackboot_raft_apply_duration_seconds_bucket{le="0.01"} 2
rackboot_raft_apply_duration_seconds_bucket{le="0.1"} 3
rackboot_raft_apply_duration_seconds_bucket{le="+Inf"} 4
rackboot_raft_apply_duration_seconds_sum 1.25
rackboot_raft_apply_duration_seconds_count 4
`
	if err := testutil.CollectAndCompare(NewRaft(src), strings.NewReader(want),
		"rackboot_raft_state", "rackboot_raft_term", "rackboot_raft_commit_index",
		"rackboot_raft_last_snapshot_timestamp_seconds", "rackboot_raft_apply_duration_seconds",
		"rackboot_raft_voters", "rackboot_raft_leader_last_contact_timestamp_seconds"); err != nil {
		t.Error(err)
	}
	src.LastSnapshot = time.Time{}
	if n := testutil.CollectAndCount(NewRaft(src), "rackboot_raft_last_snapshot_timestamp_seconds"); n != 0 {
		t.Errorf("a node without a snapshot has %d snapshot time series", n)
	}
}

// stateStore is an engine store with an infra-env, a cluster, two hosts
// and two BareMetalHosts.
func stateStore(t *testing.T) *enginetest.Store {
	t.Helper()
	st := enginetest.NewStore()
	apply := func(cmd engine.Command) {
		t.Helper()
		if _, err := st.Apply(context.Background(), cmd); err != nil {
			t.Fatalf("%T: %v", cmd, err)
		}
	}
	const ie = "aaaaaaaa-0000-4000-8000-000000000001"
	apply(&engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ie, Name: "rack"}})
	apply(&engine.CreateCluster{Cluster: engine.Cluster{ID: "aaaaaaaa-0000-4000-8000-000000000002", Name: "c1", Status: "insufficient"}})
	for i, id := range []string{"bbbbbbbb-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002"} {
		status := []string{"discovering", "known"}[i]
		apply(&engine.RegisterHost{Host: engine.Host{ID: id, InfraEnvID: ie, Status: status}})
	}
	apply(&engine.CreateBareMetalHost{Host: engine.BareMetalHost{Name: "bmh-0", BootMACAddress: "52:54:00:00:00:10"}})
	apply(&engine.SetBareMetalHostStatus{Name: "bmh-0", Status: engine.BMHStatus{ProvisioningState: "provisioned", OperationalStatus: "OK"}})
	apply(&engine.CreateBareMetalHost{Host: engine.BareMetalHost{Name: "bmh-1", BootMACAddress: "52:54:00:00:00:11"}})
	return st
}

// TestStateCollector: hosts, clusters and BareMetalHosts are counted by
// state from the store at scrape time.
func TestStateCollector(t *testing.T) {
	st := stateStore(t)
	c := NewState(st)
	want := `
# HELP rackboot_infraenvs Infra-envs defined.
# TYPE rackboot_infraenvs gauge
rackboot_infraenvs 1
# HELP rackboot_clusters Clusters by status (pending-for-input, ready, installing, installed, error, ...).
# TYPE rackboot_clusters gauge
rackboot_clusters{status="insufficient"} 1
# HELP rackboot_hosts Hosts by status (discovering, known, installing, installed, error, ...).
# TYPE rackboot_hosts gauge
rackboot_hosts{status="discovering"} 1
rackboot_hosts{status="known"} 1
# HELP rackboot_baremetalhosts BareMetalHosts by provisioning state and operational status.
# TYPE rackboot_baremetalhosts gauge
rackboot_baremetalhosts{operational_status="OK",provisioning_state="provisioned"} 1
rackboot_baremetalhosts{operational_status="none",provisioning_state="registering"} 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}

// TestLoopCollector: each controller's passes and errors, by name.
func TestLoopCollector(t *testing.T) {
	var install, bmh engine.LoopStats
	install.Pass()
	install.Pass()
	install.Error()
	bmh.Pass()
	want := `
# HELP rackboot_controller_errors_total Failures a controller met (a failed pass, cluster step or BMC operation).
# TYPE rackboot_controller_errors_total counter
rackboot_controller_errors_total{controller="bmh"} 0
rackboot_controller_errors_total{controller="install"} 1
# HELP rackboot_controller_passes_total Passes a controller made over the state.
# TYPE rackboot_controller_passes_total counter
rackboot_controller_passes_total{controller="bmh"} 1
rackboot_controller_passes_total{controller="install"} 2
`
	c := NewLoops(Loop{Name: "install", Stats: &install}, Loop{Name: "bmh", Stats: &bmh})
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}
