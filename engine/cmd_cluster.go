package engine

// CreateCluster stores a new cluster.
type CreateCluster struct {
	Stamp
	Cluster Cluster `json:"cluster"`
}

// Type implements Command.
func (*CreateCluster) Type() Type { return TypeCreateCluster }

func (c *CreateCluster) apply(tx *Tx) (any, error) {
	cl := c.Cluster
	if err := checkID(KindCluster, cl.ID); err != nil {
		return nil, err
	}
	if cl.Name == "" {
		return nil, invalid("cluster %s has no name", cl.ID)
	}
	if _, ok := tx.m.clusters[cl.ID]; ok {
		return nil, conflict("cluster %s exists", cl.ID)
	}
	cl.Meta = Meta{}
	cl.StatusUpdatedAt = tx.at
	put(tx, tx.m.clusters, KindCluster, cl.ID, &cl)
	return cl, nil
}

// ClusterPatch lists the fields of a cluster to change; nil leaves a field
// as it is.
type ClusterPatch struct {
	Name                   *string           `json:"name,omitempty"`
	BaseDomain             *string           `json:"base_dns_domain,omitempty"`
	OpenshiftVersion       *string           `json:"openshift_version,omitempty"`
	ImageSetRef            *string           `json:"image_set_ref,omitempty"`
	PullSecretRef          *string           `json:"pull_secret_ref,omitempty"`
	SSHPublicKey           *string           `json:"ssh_public_key,omitempty"`
	ClusterNetworks        *[]ClusterNetwork `json:"cluster_networks,omitempty"`
	ServiceNetworks        *[]string         `json:"service_networks,omitempty"`
	MachineNetworks        *[]string         `json:"machine_networks,omitempty"`
	APIVIPs                *[]string         `json:"api_vips,omitempty"`
	IngressVIPs            *[]string         `json:"ingress_vips,omitempty"`
	ControlPlaneCount      *int              `json:"control_plane_count,omitempty"`
	NetworkType            *string           `json:"network_type,omitempty"`
	InstallConfigOverrides *string           `json:"install_config_overrides,omitempty"`
	HoldInstallation       *bool             `json:"hold_installation,omitempty"`
}

// UpdateCluster changes fields of a cluster.
type UpdateCluster struct {
	Stamp
	ID    string       `json:"id"`
	Patch ClusterPatch `json:"patch"`
}

// Type implements Command.
func (*UpdateCluster) Type() Type { return TypeUpdateCluster }

func (c *UpdateCluster) apply(tx *Tx) (any, error) {
	old, ok := tx.m.clusters[c.ID]
	if !ok {
		return nil, notFound(KindCluster, c.ID)
	}
	p, cl := c.Patch, *old
	if p.Name != nil && *p.Name == "" {
		return nil, invalid("cluster %s: empty name", c.ID)
	}
	if p.ControlPlaneCount != nil && *p.ControlPlaneCount < 0 {
		return nil, invalid("cluster %s: negative control plane count", c.ID)
	}
	set(&cl.Name, p.Name)
	set(&cl.BaseDomain, p.BaseDomain)
	set(&cl.OpenshiftVersion, p.OpenshiftVersion)
	set(&cl.ImageSetRef, p.ImageSetRef)
	set(&cl.PullSecretRef, p.PullSecretRef)
	set(&cl.SSHPublicKey, p.SSHPublicKey)
	set(&cl.ClusterNetworks, p.ClusterNetworks)
	set(&cl.ServiceNetworks, p.ServiceNetworks)
	set(&cl.MachineNetworks, p.MachineNetworks)
	set(&cl.APIVIPs, p.APIVIPs)
	set(&cl.IngressVIPs, p.IngressVIPs)
	set(&cl.ControlPlaneCount, p.ControlPlaneCount)
	set(&cl.NetworkType, p.NetworkType)
	set(&cl.InstallConfigOverrides, p.InstallConfigOverrides)
	set(&cl.HoldInstallation, p.HoldInstallation)
	put(tx, tx.m.clusters, KindCluster, cl.ID, &cl)
	return cl, nil
}

// DeleteCluster removes a cluster that no infra-env and no host refers to
// (unbind them first).
type DeleteCluster struct {
	Stamp
	ID string `json:"id"`
}

// Type implements Command.
func (*DeleteCluster) Type() Type { return TypeDeleteCluster }

func (c *DeleteCluster) apply(tx *Tx) (any, error) {
	if _, ok := tx.m.clusters[c.ID]; !ok {
		return nil, notFound(KindCluster, c.ID)
	}
	for _, ie := range tx.m.infraEnvs {
		if ie.ClusterID == c.ID {
			return nil, conflict("cluster %s is used by infra-env %s", c.ID, ie.ID)
		}
	}
	for _, h := range tx.m.hosts {
		if h.ClusterID == c.ID {
			return nil, conflict("cluster %s still has hosts", c.ID)
		}
	}
	del(tx, tx.m.clusters, KindCluster, c.ID)
	return nil, nil
}

// SetClusterStatus sets a cluster's status. When From is not empty the
// current status must be one of From (else ErrConflict), so a controller's
// transition cannot overwrite one it did not see.
type SetClusterStatus struct {
	Stamp
	ID         string   `json:"id"`
	Status     string   `json:"status"`
	StatusInfo string   `json:"status_info"`
	From       []string `json:"from,omitempty"`
}

// Type implements Command.
func (*SetClusterStatus) Type() Type { return TypeSetClusterStatus }

func (c *SetClusterStatus) apply(tx *Tx) (any, error) {
	old, ok := tx.m.clusters[c.ID]
	if !ok {
		return nil, notFound(KindCluster, c.ID)
	}
	if c.Status == "" {
		return nil, invalid("cluster %s: empty status", c.ID)
	}
	if !statusAllowed(old.Status, c.From) {
		return nil, conflict("cluster %s is %q, not one of %q", c.ID, old.Status, c.From)
	}
	cl := *old
	if cl.Status != c.Status {
		cl.StatusUpdatedAt = tx.at
	}
	cl.Status, cl.StatusInfo = c.Status, c.StatusInfo
	put(tx, tx.m.clusters, KindCluster, cl.ID, &cl)
	return cl, nil
}
