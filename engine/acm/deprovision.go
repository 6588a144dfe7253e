package acm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/rackboot/rackboot/engine"
)

// finalizerACI is upstream's finalizer of an AgentClusterInstall: its
// cluster is deregistered and its Agents deleted before it goes.
const finalizerACI = "agentclusterinstall.agent-install.openshift.io/ai-deprovision"

// setFinalizers writes obj with finalizers fs.
func setFinalizers(ctx context.Context, o Options, obj engine.Object, fs []string) error {
	var body map[string]any
	if err := json.Unmarshal(obj.Body, &body); err != nil {
		return err
	}
	md, _ := body["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		body["metadata"] = md
	}
	if len(fs) == 0 {
		delete(md, "finalizers")
	} else {
		md["finalizers"] = fs
	}
	return putBody(ctx, o, obj, body)
}

// deprovision is the finalizer's work on a deleted AgentClusterInstall:
// the cluster's hosts and the cluster are deregistered (through the
// domain), their Agents deleted, then the finalizer removed. An infra-env
// still bound to the cluster (an InfraEnv's clusterRef) keeps it: the ACI
// stays until that InfraEnv is deleted.
func deprovision(ctx context.Context, o Options, in install) error {
	id := in.aci.UID
	var hosts []string
	var exists bool
	o.Store.Read(func(m *engine.Model) {
		_, exists = m.Cluster(id)
		for h := range m.HostsOfCluster(id) {
			hosts = append(hosts, h.ID)
		}
	})
	var agents []engine.ObjectRef
	o.Store.Read(func(m *engine.Model) {
		for a := range m.Objects(groupAgent, kindAgent, "") {
			if slices.Contains(hosts, a.Name) {
				agents = append(agents, a.ObjectRef)
			}
		}
	})
	var err error
	if exists {
		// The hosts go first; their Agents go even when the cluster
		// itself stays (bound infra-env): a later pass no longer sees them.
		if err = o.Domain.DeleteCluster(ctx, id); err != nil {
			err = fmt.Errorf("deregister the cluster: %w", err)
		} else {
			o.Log.Info("cluster of a deleted AgentClusterInstall deregistered", "cluster", id, "hosts", len(hosts))
		}
	}
	for _, ref := range agents {
		if _, derr := o.Store.Apply(ctx, &engine.DeleteObject{Ref: ref}); derr != nil && !errors.Is(derr, engine.ErrNotFound) {
			return errors.Join(err, fmt.Errorf("delete Agent %s: %w", ref.Name, derr))
		}
	}
	if err != nil {
		return err
	}
	fs := slices.DeleteFunc(slices.Clone(in.aci.Finalizers()), func(f string) bool { return f == finalizerACI })
	return setFinalizers(ctx, o, in.aci, fs)
}
