package acm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/rackboot/rackboot/engine"
)

// As upstream's Agent controller and host state machine: clearing the
// clusterDeploymentName of an Agent whose host is installed unbinds the
// host, which is unbinding-pending-user-action (Bound False,
// UnbindingPendingUserAction) until it boots the discovery image again.
func TestInstalledAgentUnbind(t *testing.T) {
	s, _ := clusterEnv(t)
	setCD := lateBoundAgent(t, s)
	setCD(map[string]any{"name": "c1", "namespace": "ns"})
	waitFor(t, s, "the host bound", func(m *engine.Model) bool { h, _ := m.Host(hostID); return h.ClusterID == aciUID })
	for { // the controllers evaluate the host meanwhile
		var status string
		s.Read(func(m *engine.Model) { h, _ := m.Host(hostID); status = h.Status })
		_, err := s.Apply(context.Background(), &engine.SetHostStatus{ID: hostID, Status: "installed", StatusInfo: "Done", From: []string{status}})
		if err == nil {
			break
		}
		if !errors.Is(err, engine.ErrConflict) {
			t.Fatal(err)
		}
	}

	setCD(nil)
	waitFor(t, s, "the host unbound, pending user action, and its Agent saying so", func(m *engine.Model) bool {
		h, _ := m.Host(hostID)
		_, b, _ := agentOf(m)
		st, _ := b["status"].(map[string]any)
		conds, _ := st["conditions"].([]any)
		pending := false
		for _, c := range conds {
			c := c.(map[string]any)
			pending = pending || c["type"] == "Bound" && c["status"] == "False" && c["reason"] == "UnbindingPendingUserAction"
		}
		return h.ClusterID == "" && h.Status == "unbinding-pending-user-action" &&
			h.StatusInfo == "Host is waiting to be unbound from the cluster" && pending
	})
}
