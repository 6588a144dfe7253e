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
// ClusterDeployment last taken to the cluster ("aci/cd"): a spec is
// compared with the cluster only when one moved, so a value the domain
// normalizes cannot make an update on every pass.
const annotationSyncedGen = "rackboot.io/synced-generation"

func syncedGen(in install) string { return fmt.Sprintf("%d/%d", in.aci.Generation, in.cd.Generation) }

// markSynced records on the ACI that its generations were taken.
func markSynced(ctx context.Context, o Options, in install) error {
	var body map[string]any
	if err := json.Unmarshal(in.aci.Body, &body); err != nil {
		return err
	}
	md, _ := body["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		body["metadata"] = md
	}
	ann, _ := md["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
	}
	ann[annotationSyncedGen] = syncedGen(in)
	md["annotations"] = ann
	return putBody(ctx, o, in.aci, body)
}

// synced reports whether the ACI's generations were taken already.
func synced(in install) bool {
	var b struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(in.aci.Body, &b)
	return b.Metadata.Annotations[annotationSyncedGen] == syncedGen(in)
}

// syncSpec takes a change of the ClusterDeployment's or the ACI's spec to
// the cluster before its installation starts (the REST API's cluster
// update, through the domain). A field the spec leaves out is left as the
// cluster has it (defaults, a machine network found from the hosts).
func syncSpec(ctx context.Context, o Options, in install) error {
	id := in.aci.UID
	var c engine.Cluster
	var ok bool
	o.Store.Read(func(m *engine.Model) { c, ok = m.Cluster(id) })
	if !ok || !in.cdOK || synced(in) || slices.Contains(installing, c.Status) || slices.Contains(stopped, c.Status) {
		return nil
	}
	want, err := clusterParams(o, in)
	if err != nil {
		return err
	}
	if p, changed := clusterChanges(c, want); changed {
		if err := o.Domain.UpdateCluster(ctx, id, p); err != nil {
			return err
		}
		o.Log.Info("spec change taken to the cluster", "cluster", id, "name", in.aci.Namespace+"/"+in.aci.Name)
	}
	return markSynced(ctx, o, in)
}

// clusterChanges is the update that makes c what want describes (only
// the fields the spec sets); changed is false when c already is.
func clusterChanges(c engine.Cluster, want models.ClusterCreateParams) (models.V2ClusterUpdateParams, bool) {
	var p models.V2ClusterUpdateParams
	changed := false
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
