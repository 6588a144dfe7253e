package acm

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

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
// cluster's installation started, nor an InfraEnv's clusterRef once made,
// nor an Agent's clusterDeploymentName while its host installs; as hive's,
// a ClusterDeployment's spec is immutable but for its mutable fields.
func Admission(store engine.Store) func(cur *engine.Object, next engine.Object) error {
	return func(cur *engine.Object, next engine.Object) error {
		if cur != nil && next.Group == groupHive && next.Kind == kindCD {
			return cdImmutable(*cur, next)
		}
		if cur != nil && next.Group == groupAgent && next.Kind == kindAgent {
			return agentImmutable(store, *cur, next)
		}
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

// cdMutable are hive's mutable ClusterDeployment spec fields (its
// webhook's names) and their JSON paths under spec.
var cdMutable = []struct{ name, path string }{
	{"CertificateBundles", "certificateBundles"}, {"ClusterMetadata", "clusterMetadata"},
	{"ControlPlaneConfig", "controlPlaneConfig"}, {"Ingress", "ingress"}, {"Installed", "installed"},
	{"PreserveOnDelete", "preserveOnDelete"}, {"ClusterPoolRef", "clusterPoolRef"}, {"PowerState", "powerState"},
	{"HibernateAfter", "hibernateAfter"}, {"InstallAttemptsLimit", "installAttemptsLimit"},
	{"Platform.AgentBareMetal.AgentSelector", "platform.agentBareMetal.agentSelector"},
	{"Platform.AWS.PrivateLink.AdditionalAllowedPrincipals", "platform.aws.privateLink.additionalAllowedPrincipals"},
	{"Platform.GCP.DiscardLocalSsdOnHibernate", "platform.gcp.discardLocalSsdOnHibernate"},
}

// cdImmutable is hive's webhook refusal of a ClusterDeployment spec change
// outside its mutable fields, naming the changed fields.
func cdImmutable(cur, next engine.Object) error {
	a, b := cdSpecBut(cur.Body), cdSpecBut(next.Body)
	if reflect.DeepEqual(a, b) {
		return nil
	}
	names := make([]string, len(cdMutable))
	for i, f := range cdMutable {
		names[i] = f.name
	}
	var diff []string
	union := maps.Clone(a)
	maps.Copy(union, b)
	for _, k := range slices.Sorted(maps.Keys(union)) {
		if !reflect.DeepEqual(a[k], b[k]) {
			diff = append(diff, fmt.Sprintf("%s: (%s => %s)", goName(k), brief(a[k]), brief(b[k])))
		}
	}
	return fmt.Errorf("Attempted to change ClusterDeployment.Spec which is immutable except for %s fields. Unsupported change: \n%s",
		strings.Join(names, ","), strings.Join(diff, "\n"))
}

// cdSpecBut is body's spec without hive's mutable fields.
func cdSpecBut(body json.RawMessage) map[string]any {
	var b struct {
		Spec map[string]any `json:"spec"`
	}
	_ = json.Unmarshal(body, &b)
	if b.Spec == nil {
		b.Spec = map[string]any{}
	}
	for _, f := range cdMutable {
		m := b.Spec
		parts := strings.Split(f.path, ".")
		for _, p := range parts[:len(parts)-1] {
			m, _ = m[p].(map[string]any)
		}
		delete(m, parts[len(parts)-1])
	}
	return b.Spec
}

func goName(k string) string {
	if k == "" {
		return k
	}
	return strings.ToUpper(k[:1]) + k[1:]
}

func brief(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// errAgentCD is upstream's webhook refusal of an Agent's
// clusterDeploymentName change while its host installs.
var errAgentCD = errors.New("Failed validation: Attempted to change Spec.ClusterDeploymentName which is immutable during Agent installation.")

// agentInstalling are the host states in which upstream's webhook keeps
// an Agent's clusterDeploymentName.
var agentInstalling = []string{"preparing-for-installation", "preparing-failed", "preparing-successful",
	"installing", "installing-in-progress", "installing-pending-user-action"}

func agentImmutable(store engine.Store, cur, next engine.Object) error {
	ref := func(o engine.Object) any {
		var s struct {
			Spec struct {
				CD any `json:"clusterDeploymentName"`
			} `json:"spec"`
		}
		_ = json.Unmarshal(o.Body, &s)
		return s.Spec.CD
	}
	if reflect.DeepEqual(ref(cur), ref(next)) {
		return nil
	}
	var status string
	store.Read(func(m *engine.Model) {
		if h, ok := m.Host(cur.Name); ok {
			status = h.Status
		}
	})
	if slices.Contains(agentInstalling, status) {
		return errAgentCD
	}
	return nil
}
