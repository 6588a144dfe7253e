package acm

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/rackboot/rackboot/engine"
)

// finalizerAgent is upstream's finalizer of an Agent: its host is
// deregistered before it goes.
const finalizerAgent = "agent.agent-install.openshift.io/ai-deprovision"

// unboundStatuses are the host states in which upstream deregisters the
// hosts of a deleted InfraEnv; a host in another keeps the infra-env.
var unboundStatuses = []string{"insufficient-unbound", "disconnected-unbound", "discovering-unbound", "known-unbound",
	"installed", "added-to-existing-cluster", "unbinding", "unbinding-pending-user-action"}

// agentDeleting handles an Agent being deleted whose host exists: the host
// is deregistered (through the domain), then the finalizer removed; its
// done reports whether the Agent was being deleted.
func agentDeleting(ctx context.Context, o Options, p agentPair) (done bool, err error) {
	if !p.ok || !p.agent.Deleting() {
		return false, nil
	}
	if !slices.Contains(p.agent.Finalizers(), finalizerAgent) {
		return true, nil // another's finalizer holds it
	}
	if err := o.Domain.DeregisterHost(ctx, p.host.InfraEnvID, p.host.ID); err != nil {
		return true, fmt.Errorf("deregister the host of a deleted Agent: %w", err)
	}
	o.Log.Info("host of a deleted Agent deregistered", "host", p.host.ID, "infra_env", p.host.InfraEnvID)
	return true, dropFinalizer(ctx, o, p.agent, finalizerAgent)
}

// dropFinalizer writes obj without finalizer f.
func dropFinalizer(ctx context.Context, o Options, obj engine.Object, f string) error {
	fs := slices.DeleteFunc(slices.Clone(obj.Finalizers()), func(x string) bool { return x == f })
	return setFinalizers(ctx, o, obj, fs)
}

// reconcileOrphanAgents deletes, as upstream's Agent controller does, the
// Agents rackboot made (with its finalizer) whose host is gone
// (deregistered through the REST API, or with its cluster), and lets
// those being deleted go; only the Agents in scope (agentsInScope).
func reconcileOrphanAgents(ctx context.Context, o Options, ies []engine.Object, only map[string]bool) {
	var orphans []engine.Object
	o.Store.Read(func(m *engine.Model) {
		for _, a := range agentsInScope(m, ies, only) {
			if _, ok := m.Host(a.Name); !ok && slices.Contains(a.Finalizers(), finalizerAgent) {
				orphans = append(orphans, a)
			}
		}
	})
	for _, a := range orphans {
		var err error
		if a.Deleting() {
			err = dropFinalizer(ctx, o, a, finalizerAgent)
		} else if _, err = o.Store.Apply(ctx, &engine.DeleteObject{Ref: a.ObjectRef}); err == nil {
			o.Log.Info("Agent of a host no longer registered deleted", "host", a.Name)
		}
		if err != nil && !errors.Is(err, engine.ErrNotFound) && ctx.Err() == nil {
			o.Log.Warn("Agent of a gone host not deleted", "host", a.Name, "err", err)
		}
	}
}

// deregisterUnbound deregisters the hosts of infra-env id in the states
// upstream deregisters on the InfraEnv's deletion; it reports whether
// others remain (they keep the infra-env).
func deregisterUnbound(ctx context.Context, o Options, id string) (remaining bool, err error) {
	var hosts []engine.Host
	o.Store.Read(func(m *engine.Model) {
		for h := range m.HostsOfInfraEnv(id) {
			hosts = append(hosts, h)
		}
	})
	for _, h := range hosts {
		if !slices.Contains(unboundStatuses, h.Status) {
			remaining = true
			continue
		}
		if err := o.Domain.DeregisterHost(ctx, id, h.ID); err != nil {
			return true, fmt.Errorf("deregister host %s: %w", h.ID, err)
		}
	}
	return remaining, nil
}
