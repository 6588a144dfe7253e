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
// UnbindingPendingUserAction) until it boots the discovery image again,
// its installation's progress reset.
func TestInstalledAgentUnbind(t *testing.T) {
	s, _ := clusterEnv(t)
	setCD := lateBoundAgent(t, s)
	setCD(map[string]any{"name": "c1", "namespace": "ns"})
	waitFor(t, s, "the host bound", func(m *engine.Model) bool { h, _ := m.Host(hostID); return h.ClusterID == aciUID })
	setStatus := func(to, info string) {
		t.Helper()
		for { // the controllers evaluate the host meanwhile
			var status string
			s.Read(func(m *engine.Model) { h, _ := m.Host(hostID); status = h.Status })
			_, err := s.Apply(context.Background(), &engine.SetHostStatus{ID: hostID, Status: to, StatusInfo: info, From: []string{status}})
			if err == nil {
				return
			}
			if !errors.Is(err, engine.ErrConflict) {
				t.Fatal(err)
			}
		}
	}
	setStatus("installing-in-progress", "Installing")
	apply(t, s, &engine.InstallProgress{ID: hostID, Stage: "Rebooting"})
	setStatus("installed", "Done")
	waitFor(t, s, "the Agent's progress", func(m *engine.Model) bool { return agentStage(m) == "Rebooting" })

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
	// What the installation left on the host is reset, as upstream's
	// unbind transition resets it.
	s.Read(func(m *engine.Model) {
		if h, _ := m.Host(hostID); h.Progress != (engine.Progress{}) || agentStage(m) != "" {
			t.Errorf("unbound host keeps its progress: %+v, the Agent's stage %q", h.Progress, agentStage(m))
		}
	})
}

// agentStage is the Agent's status.progress.currentStage.
func agentStage(m *engine.Model) string {
	_, b, _ := agentOf(m)
	st, _ := b["status"].(map[string]any)
	p, _ := st["progress"].(map[string]any)
	stage, _ := p["currentStage"].(string)
	return stage
}
