package acm_test

import (
	"testing"

	"github.com/rackboot/rackboot/engine"
)

const hostID2 = "5c1a9d0e-3b7f-4d2a-8e6f-0a1b2c3d4e60"

func agentNamed(m *engine.Model, id string) (engine.Object, bool) {
	return m.Object(engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "Agent", Namespace: "ns", Name: id}.Key())
}

// As upstream: an Agent carries the ai-deprovision finalizer; deleting it
// deregisters its host first (and it is not made again); an Agent whose
// host is deregistered (the REST API) is deleted; deleting the InfraEnv
// deregisters its unbound hosts, whose Agents go, then its infra-env.
func TestAgentDeletionOrder(t *testing.T) {
	s, _ := clusterEnv(t)
	put(t, s, "agent-install.openshift.io", "InfraEnv", "ns", "ie", uid, `{"spec":{"pullSecretRef":{"name":"ps"}}}`)
	waitFor(t, s, "the infra-env", func(m *engine.Model) bool { _, ok := m.InfraEnv(uid); return ok })
	for _, id := range []string{hostID, hostID2} {
		apply(t, s, &engine.RegisterHost{Host: engine.Host{ID: id, InfraEnvID: uid, Status: "discovering-unbound"}})
	}
	waitFor(t, s, "two Agents with the finalizer", func(m *engine.Model) bool {
		for _, id := range []string{hostID, hostID2} {
			a, ok := agentNamed(m, id)
			if fs := a.Finalizers(); !ok || len(fs) != 1 || fs[0] != "agent.agent-install.openshift.io/ai-deprovision" {
				return false
			}
		}
		return true
	})

	// kubectl delete agent: the host is deregistered, then the Agent goes.
	apply(t, s, &engine.DeleteObject{Ref: engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "Agent", Namespace: "ns", Name: hostID}})
	waitFor(t, s, "the host and its Agent gone", func(m *engine.Model) bool {
		_, host := m.Host(hostID)
		_, agent := agentNamed(m, hostID)
		return !host && !agent
	})

	// Deleting the InfraEnv deregisters its unbound host; its Agent and
	// the infra-env go.
	apply(t, s, &engine.DeleteObject{Ref: engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: "ns", Name: "ie"}})
	waitFor(t, s, "the host, its Agent and the infra-env gone", func(m *engine.Model) bool {
		_, host := m.Host(hostID2)
		_, agent := agentNamed(m, hostID2)
		_, ie := m.InfraEnv(uid)
		return !host && !agent && !ie
	})
}

// An Agent whose host is deregistered through the REST API is deleted.
func TestAgentOfDeregisteredHost(t *testing.T) {
	s, _ := clusterEnv(t)
	put(t, s, "agent-install.openshift.io", "InfraEnv", "ns", "ie", uid, `{"spec":{"pullSecretRef":{"name":"ps"}}}`)
	waitFor(t, s, "the infra-env", func(m *engine.Model) bool { _, ok := m.InfraEnv(uid); return ok })
	apply(t, s, &engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: uid, Status: "discovering-unbound"}})
	waitFor(t, s, "the Agent", func(m *engine.Model) bool {
		a, ok := agentNamed(m, hostID)
		return ok && len(a.Finalizers()) == 1
	})
	apply(t, s, &engine.DeleteHost{ID: hostID, InfraEnvID: uid})
	waitFor(t, s, "the Agent gone", func(m *engine.Model) bool { _, ok := agentNamed(m, hostID); return !ok })
}

// An Agent deleted with propagationPolicy Foreground or Orphan carries
// the collector's finalizer beside its own ai-deprovision one: the
// controller deregisters its host and removes its own, the collector
// (engine/kubegc) removes the other, and the Agent goes once both are.
func TestAgentDeletedWithPropagation(t *testing.T) {
	s, _ := clusterEnv(t)
	put(t, s, "agent-install.openshift.io", "InfraEnv", "ns", "ie", uid, `{"spec":{"pullSecretRef":{"name":"ps"}}}`)
	waitFor(t, s, "the infra-env", func(m *engine.Model) bool { _, ok := m.InfraEnv(uid); return ok })
	policies := map[string]string{hostID: engine.PropagateForeground, hostID2: engine.PropagateOrphan}
	for id := range policies {
		apply(t, s, &engine.RegisterHost{Host: engine.Host{ID: id, InfraEnvID: uid, Status: "discovering-unbound"}})
	}
	waitFor(t, s, "two Agents with the finalizer", func(m *engine.Model) bool {
		for id := range policies {
			if a, ok := agentNamed(m, id); !ok || len(a.Finalizers()) != 1 {
				return false
			}
		}
		return true
	})
	for id, p := range policies {
		apply(t, s, &engine.DeleteObject{Ref: engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "Agent", Namespace: "ns", Name: id}, Propagation: p})
	}
	waitFor(t, s, "the hosts and their Agents gone", func(m *engine.Model) bool {
		for id := range policies {
			_, host := m.Host(id)
			_, agent := agentNamed(m, id)
			if host || agent {
				return false
			}
		}
		return true
	})
}
