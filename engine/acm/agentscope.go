package acm

import (
	"slices"

	"github.com/rackboot/rackboot/engine"
)

// agentsInScope are the Agents a pass checks for a gone host or a
// changed ClusterDeployment: every Agent on a full pass (only nil); on a
// pass after host and Agent changes, only the Agents named by the ids in
// only, so that a host's check-in costs a lookup per InfraEnv namespace
// (where the controller makes a host's Agent), not a walk over every
// Agent. An id without a host (an Agent changed after its host went, or
// made by hand) is looked for in every namespace.
func agentsInScope(m *engine.Model, ies []engine.Object, only map[string]bool) []engine.Object {
	if only == nil {
		return slices.Collect(m.Objects(groupAgent, kindAgent, ""))
	}
	var nss []string
	for _, ie := range ies {
		if !slices.Contains(nss, ie.Namespace) {
			nss = append(nss, ie.Namespace)
		}
	}
	var agents []engine.Object
	hostless := map[string]bool{}
	for id := range only {
		if _, ok := m.Host(id); !ok {
			hostless[id] = true
			continue
		}
		for _, ns := range nss {
			if a, ok := m.Object(engine.ObjectRef{Group: groupAgent, Kind: kindAgent, Namespace: ns, Name: id}.Key()); ok {
				agents = append(agents, a)
			}
		}
	}
	if len(hostless) > 0 {
		for a := range m.Objects(groupAgent, kindAgent, "") {
			if hostless[a.Name] {
				agents = append(agents, a)
			}
		}
	}
	return agents
}
