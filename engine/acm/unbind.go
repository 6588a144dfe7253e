package acm

import (
	"context"
	"fmt"
	"slices"

	"github.com/rackboot/rackboot/engine"
)

// unbindable are the host states in which an Agent's host is unbound
// when its Agent no longer names (or is no longer selected by) the
// ClusterDeployment of its cluster: before the installation, and after
// it (the host is then unbinding-pending-user-action until it boots the
// discovery image again, as upstream's).
var unbindable = []string{"discovering", "known", "insufficient", "disconnected", "pending-for-input", "binding",
	"installed", "error", "cancelled", "added-to-existing-cluster"}

// unbindAgents unbinds, as upstream's Agent controller does when
// spec.clusterDeploymentName is cleared or changed, the hosts of a late
// binding infra-env whose Agent wants another ClusterDeployment than the
// one of their cluster, or none; bindAgents then binds them to the new
// one. A host that is installing stays (upstream's webhook refuses the
// change then). Only the Agents in scope (agentsInScope).
func unbindAgents(ctx context.Context, o Options, ies []engine.Object, only map[string]bool) error {
	type unbind struct{ ie, id string }
	var todo []unbind
	o.Store.Read(func(m *engine.Model) {
		for _, a := range agentsInScope(m, ies, only) {
			h, ok := m.Host(a.Name)
			if !ok || h.ClusterID == "" || !slices.Contains(unbindable, h.Status) || a.Deleting() {
				continue
			}
			if ie, ok := m.InfraEnv(h.InfraEnvID); !ok || ie.ClusterID != "" {
				continue // bound by its infra-env
			}
			cur, ok := clusterCD(m, h.ClusterID)
			if !ok {
				continue // a cluster the REST API made, or being deleted
			}
			if want, ok := wantedCD(m, a); !ok || want != cur {
				todo = append(todo, unbind{h.InfraEnvID, h.ID})
			}
		}
	})
	for _, u := range todo {
		if err := o.Domain.UnbindHost(ctx, u.ie, u.id); err != nil {
			return fmt.Errorf("unbind Agent %s: %w", u.id, err)
		}
		o.Log.Info("Agent unbound from the ClusterDeployment it no longer names", "host", u.id, "infra_env", u.ie)
	}
	return nil
}

// clusterCD is the ClusterDeployment of the cluster made from the
// AgentClusterInstall whose uid is id; false when either is gone or being
// deleted (the ACI's finalizer deregisters the hosts then).
func clusterCD(m *engine.Model, id string) (clusterRef, bool) {
	for aci := range m.Objects(groupHiveExt, kindACI, "") {
		if aci.UID != id {
			continue
		}
		var s aciSpec
		if aci.Deleting() || decodeSpec(aci, &s) != nil {
			return clusterRef{}, false
		}
		cd, ok := m.Object(engine.ObjectRef{Group: groupHive, Kind: kindCD, Namespace: aci.Namespace, Name: s.ClusterDeploymentRef.Name}.Key())
		if !ok || cd.Deleting() {
			return clusterRef{}, false
		}
		return clusterRef{Name: cd.Name, Namespace: cd.Namespace}, true
	}
	return clusterRef{}, false
}
