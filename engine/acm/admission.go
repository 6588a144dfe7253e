package acm

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"

	"github.com/rackboot/rackboot/engine"
)

// errImmutableSpec is upstream's webhook refusal of an ACI spec change
// once the installation started.
var errImmutableSpec = errors.New("Attempted to change AgentClusterInstall.Spec which is immutable after install started, except for ClusterMetadata fields.")

// errClusterRef is upstream's webhook refusal of an InfraEnv clusterRef
// change.
var errClusterRef = errors.New("Attempted to change Spec.ClusterRef which is immutable after InfraEnv creation.")

// Admission is the domain's admission of writes to the ACM kinds, for
// engine/kubeapi's Options.Admit: as upstream's validating webhook, an
// AgentClusterInstall's spec (but clusterMetadata) cannot change once its
// cluster's installation started, nor an InfraEnv's clusterRef once made.
func Admission(store engine.Store) func(cur *engine.Object, next engine.Object) error {
	return func(cur *engine.Object, next engine.Object) error {
		if cur != nil && next.Group == groupAgent && next.Kind == kindInfraEnv {
			a, _ := infraEnvClusterRef(*cur)
			b, _ := infraEnvClusterRef(next)
			if a != b {
				return errClusterRef
			}
			return nil
		}
		if cur == nil || next.Group != groupHiveExt || next.Kind != kindACI {
			return nil
		}
		var started bool
		store.Read(func(m *engine.Model) {
			c, ok := m.Cluster(cur.UID)
			started = ok && (slices.Contains(installing, c.Status) || slices.Contains(stopped, c.Status))
		})
		if !started {
			return nil
		}
		if !reflect.DeepEqual(specBut(cur.Body), specBut(next.Body)) {
			return errImmutableSpec
		}
		return nil
	}
}

// specBut is body's spec without clusterMetadata.
func specBut(body json.RawMessage) map[string]any {
	var b struct {
		Spec map[string]any `json:"spec"`
	}
	_ = json.Unmarshal(body, &b)
	delete(b.Spec, "clusterMetadata")
	return b.Spec
}
