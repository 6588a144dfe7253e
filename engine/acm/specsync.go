package acm

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// annotationSyncedGen holds the generations of the ACI and its
// ClusterDeployment and the revisions of the pull secret Secret and the
// ClusterImageSet they name, last taken to the cluster
// ("aci/cd/secret/imageset"): a spec is compared with the cluster only
// when one moved, so a value the domain normalizes cannot make an update
// on every pass.
const annotationSyncedGen = "rackboot.io/synced-generation"

func syncedGen(o Options, in install) string {
	var ps, cis uint64
	o.Store.Read(func(m *engine.Model) {
		if r := in.cdSpec.PullSecretRef; r != nil {
			if s, ok := m.Object(engine.ObjectRef{Kind: "Secret", Namespace: in.cd.Namespace, Name: r.Name}.Key()); ok {
				ps = s.Revision
			}
		}
		if r := in.spec.ImageSetRef; r != nil {
			if s, ok := m.Object(engine.ObjectRef{Group: groupHive, Kind: kindImageSet, Name: r.Name}.Key()); ok {
				cis = s.Revision
			}
		}
	})
	return fmt.Sprintf("%d/%d/%d/%d", in.aci.Generation, in.cd.Generation, ps, cis)
}

// markSynced records on the ACI that gen (syncedGen) was taken.
func markSynced(ctx context.Context, o Options, in install, gen string) error {
	return putAnnotation(ctx, o, in.aci, annotationSyncedGen, gen)
}

// synced reports whether gen (syncedGen) was taken already.
func synced(in install, gen string) bool {
	var b struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(in.aci.Body, &b)
	return b.Metadata.Annotations[annotationSyncedGen] == gen
}

// syncSpec takes a change of the ClusterDeployment's or the ACI's spec,
// of the data of the pull secret Secret or of the ClusterImageSet they
// name, to the cluster before its installation starts (the REST API's
// cluster update, through the domain). A field the spec leaves out is
// left as the cluster has it (defaults, a machine network found from the
// hosts). Once the installation started, a pull secret change is refused
// as upstream's cluster update refuses it (the ACI's spec is refused by
// Admission then, and the ClusterImageSet left alone, as upstream's).
func syncSpec(ctx context.Context, o Options, in install) error {
	id := in.aci.UID
	var c engine.Cluster
	var ok bool
	o.Store.Read(func(m *engine.Model) { c, ok = m.Cluster(id) })
	if !ok || !in.cdOK {
		return nil
	}
	gen := syncedGen(o, in)
	if synced(in, gen) {
		return nil
	}
	var cur string
	o.Store.Read(func(m *engine.Model) { cur, _ = m.PullSecret(c.PullSecretRef) })
	if slices.Contains(installing, c.Status) || slices.Contains(stopped, c.Status) {
		// Only the pull secret is compared then, as upstream's: the
		// ClusterImageSet may go once the installation started.
		ps, err := startedPullSecret(o, in)
		if err != nil {
			return err
		}
		if ps != cur {
			return fmt.Errorf("Cluster %s is in %s state, cluster can be updated only in one of %v", id, c.Status, updatable)
		}
		return markSynced(ctx, o, in, gen)
	}
	want, err := clusterParams(o, in)
	if err != nil {
		return err
	}
	if p, changed := clusterChanges(c, want, cur); changed {
		if err := o.Domain.UpdateCluster(ctx, id, p); err != nil {
			return err
		}
		o.Log.Info("spec change taken to the cluster", "cluster", id, "name", in.aci.Namespace+"/"+in.aci.Name)
	}
	if releaseChanged(c, want) {
		if err := o.Domain.SetClusterRelease(ctx, id, *want.OpenshiftVersion, want.ImageSetRef); err != nil {
			return err
		}
		o.Log.Info("ClusterImageSet change taken to the cluster", "cluster", id, "name", in.aci.Namespace+"/"+in.aci.Name)
	}
	return markSynced(ctx, o, in, gen)
}

// startedPullSecret is the pull secret of in's ClusterDeployment's
// Secret (an input error when missing, as upstream's).
func startedPullSecret(o Options, in install) (string, error) {
	r := in.cdSpec.PullSecretRef
	if r == nil || r.Name == "" {
		return "", inputErr("ClusterDeployment %q: spec.pullSecretRef is not set", in.cd.Name)
	}
	ps, err := openPullSecret(o, in.cd.Namespace, r.Name)
	if err != nil {
		return "", inputError{err.Error()}
	}
	return ps, nil
}

// updatable are the cluster states upstream's cluster update accepts
// (its VerifyClusterUpdatability).
var updatable = []string{engine.ClusterStatusInsufficient, engine.ClusterStatusReady, engine.ClusterStatusPendingForInput,
	engine.ClusterStatusAddingHosts}

// releaseChanged reports whether want names another release than c's:
// another image set, or (by a ClusterImageSet's releaseImage) another
// version.
func releaseChanged(c engine.Cluster, want models.ClusterCreateParams) bool {
	if want.ImageSetRef != "" {
		return want.ImageSetRef != c.ImageSetRef
	}
	return want.OpenshiftVersion != nil && *want.OpenshiftVersion != c.OpenshiftVersion
}

// clusterChanges is the update that makes c what want describes (only
// the fields the spec sets, and the pull secret, which the cluster has as
// pullSecret); changed is false when c already is.
func clusterChanges(c engine.Cluster, want models.ClusterCreateParams, pullSecret string) (models.V2ClusterUpdateParams, bool) {
	var p models.V2ClusterUpdateParams
	changed := false
	if want.PullSecret != nil && *want.PullSecret != pullSecret {
		p.PullSecret, changed = want.PullSecret, true
	}
	if want.ControlPlaneCount != nil && int(*want.ControlPlaneCount) != c.ControlPlaneCount {
		p.ControlPlaneCount, changed = want.ControlPlaneCount, true
	}
	if want.Name != nil && *want.Name != c.Name {
		p.Name, changed = want.Name, true
	}
	if want.BaseDNSDomain != c.BaseDomain {
		p.BaseDNSDomain, changed = &want.BaseDNSDomain, true
	}
	if want.SSHPublicKey != c.SSHPublicKey {
		p.SSHPublicKey, changed = &want.SSHPublicKey, true
	}
	if *want.HoldInstallation != c.HoldInstallation {
		p.HoldInstallation, changed = want.HoldInstallation, true
	}
	if want.NetworkType != nil && *want.NetworkType != c.NetworkType {
		p.NetworkType, changed = want.NetworkType, true
	}
	ips := func(v []models.VIP) []string {
		out := []string{}
		for _, x := range v {
			out = append(out, x.IP)
		}
		return out
	}
	nets := func(v []models.Network) []string {
		out := []string{}
		for _, x := range v {
			out = append(out, x.CIDR)
		}
		return out
	}
	if len(want.APIVips) > 0 && !slices.Equal(ips(want.APIVips), c.APIVIPs) {
		p.APIVips, changed = &want.APIVips, true
	}
	if len(want.IngressVips) > 0 && !slices.Equal(ips(want.IngressVips), c.IngressVIPs) {
		p.IngressVips, changed = &want.IngressVips, true
	}
	if len(want.MachineNetworks) > 0 && !slices.Equal(nets(want.MachineNetworks), c.MachineNetworks) {
		p.MachineNetworks, changed = &want.MachineNetworks, true
	}
	if len(want.ServiceNetworks) > 0 && !slices.Equal(nets(want.ServiceNetworks), c.ServiceNetworks) {
		p.ServiceNetworks, changed = &want.ServiceNetworks, true
	}
	if len(want.ClusterNetworks) > 0 {
		var cur []models.ClusterNetwork
		for _, n := range c.ClusterNetworks {
			cur = append(cur, models.ClusterNetwork{CIDR: n.CIDR, HostPrefix: int64(n.HostPrefix)})
		}
		if !slices.Equal(cur, want.ClusterNetworks) {
			p.ClusterNetworks, changed = &want.ClusterNetworks, true
		}
	}
	return p, changed
}
