package api

import (
	"context"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// The same flow against the replicated store (a one-voter raft cluster in
// a temporary directory); what the API wrote is still there after the
// store is closed and opened again.
func TestBoundFlowRaft(t *testing.T) {
	dir := t.TempDir()
	open := func() *cluster.Store {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s, err := cluster.Open(ctx, cluster.Config{DataDir: dir, HeartbeatTimeout: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	e := newEnv(t, s)
	clusterID, ieID := runBoundFlow(t, e)
	var before engine.Host
	s.Read(func(m *engine.Model) { before, _ = m.Host(testHostID) })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open()
	t.Cleanup(func() { _ = s.Close() })
	e2 := newEnv(t, s)
	var h models.APIHost
	e2.must(adminCred(), 200, "GET", "/infra-envs/"+ieID+"/hosts/"+testHostID, nil).decode(t, &h)
	if h.Status != before.Status || !h.Approved || h.Role != models.HostRoleMaster || h.ClusterID != clusterID || h.Inventory == "" {
		t.Errorf("after restart: status %q (was %q) approved %t role %q cluster %q", h.Status, before.Status, h.Approved, h.Role, h.ClusterID)
	}
	var evs []models.Event
	e2.must(adminCred(), 200, "GET", "/events?cluster_id="+clusterID, nil).decode(t, &evs)
	if len(evs) == 0 {
		t.Errorf("no events after restart")
	}
}
