package models

// VIP is upstream's api_vips / ingress_vips element: an API or ingress
// virtual IP of a cluster.
type VIP struct {
	ClusterID string `json:"cluster_id,omitempty"`
	IP        string `json:"ip"`
}

// ClusterNetwork is upstream's cluster_networks element: one pod network
// block and the prefix length of each node's slice of it.
type ClusterNetwork struct {
	CIDR       string `json:"cidr"`
	ClusterID  string `json:"cluster_id,omitempty"`
	HostPrefix int64  `json:"host_prefix"`
}

// Network is upstream's service_networks / machine_networks element.
type Network struct {
	CIDR      string `json:"cidr"`
	ClusterID string `json:"cluster_id,omitempty"`
}

// Cluster is a cluster as the v2 API shows it (GET /v2/clusters/{id}).
type Cluster struct {
	APIVips           []VIP            `json:"api_vips"`
	BaseDNSDomain     string           `json:"base_dns_domain,omitempty"`
	ClusterNetworks   []ClusterNetwork `json:"cluster_networks"`
	ControlPlaneCount int64            `json:"control_plane_count,omitempty"`
	CPUArchitecture   string           `json:"cpu_architecture,omitempty"`
	CreatedAt         DateTime         `json:"created_at,omitempty"`
	EnabledHostCount  int64            `json:"enabled_host_count"`
	// HighAvailabilityMode is "Full", or "None" for a single node.
	HighAvailabilityMode   string     `json:"high_availability_mode,omitempty"`
	HoldInstallation       bool       `json:"hold_installation,omitempty"`
	Hosts                  []*APIHost `json:"hosts"`
	Href                   string     `json:"href"`
	ID                     string     `json:"id"`
	IngressVips            []VIP      `json:"ingress_vips"`
	InstallCompletedAt     DateTime   `json:"install_completed_at,omitzero"`
	InstallConfigOverrides string     `json:"install_config_overrides,omitempty"`
	InstallStartedAt       DateTime   `json:"install_started_at,omitzero"`
	// ImageSetRef names the image set the cluster installs (rackboot's).
	ImageSetRef      string               `json:"image_set_ref,omitempty"`
	Kind             string               `json:"kind"`
	MachineNetworks  []Network            `json:"machine_networks"`
	Name             string               `json:"name,omitempty"`
	NetworkType      string               `json:"network_type,omitempty"`
	OpenshiftVersion string               `json:"openshift_version,omitempty"`
	Progress         *ClusterProgressInfo `json:"progress,omitempty"`
	PullSecretSet    bool                 `json:"pull_secret_set,omitempty"`
	ReadyHostCount   int64                `json:"ready_host_count"`
	ServiceNetworks  []Network            `json:"service_networks"`
	SSHPublicKey     string               `json:"ssh_public_key,omitempty"`
	Status           string               `json:"status"`
	StatusInfo       string               `json:"status_info"`
	StatusUpdatedAt  DateTime             `json:"status_updated_at,omitempty"`
	TotalHostCount   int64                `json:"total_host_count"`
	UpdatedAt        DateTime             `json:"updated_at,omitempty"`
	ValidationsInfo  string               `json:"validations_info,omitempty"`
}

// ClusterProgressInfo is upstream's cluster progress: the share of the
// installation done, from the hosts' stages (rackboot sends only the
// total).
type ClusterProgressInfo struct {
	TotalPercentage int64 `json:"total_percentage"`
}

// ClusterCreateParams is the body of POST /v2/clusters (the subset
// rackboot keeps; other upstream fields are ignored). Name,
// OpenshiftVersion and PullSecret are required.
type ClusterCreateParams struct {
	APIVips           []VIP            `json:"api_vips,omitempty"`
	BaseDNSDomain     string           `json:"base_dns_domain,omitempty"`
	ClusterNetworks   []ClusterNetwork `json:"cluster_networks,omitempty"`
	ControlPlaneCount *int64           `json:"control_plane_count,omitempty"`
	CPUArchitecture   string           `json:"cpu_architecture,omitempty"`
	// HighAvailabilityMode "None" (single node) stands for a control
	// plane count of 1 when control_plane_count is not given.
	HighAvailabilityMode string `json:"high_availability_mode,omitempty"`
	HoldInstallation     *bool  `json:"hold_installation,omitempty"`
	// ImageSetRef names the image set to install (rackboot's; default:
	// the one of openshift_version, else the architecture's first).
	ImageSetRef      string    `json:"image_set_ref,omitempty"`
	NetworkType      *string   `json:"network_type,omitempty"`
	IngressVips      []VIP     `json:"ingress_vips,omitempty"`
	MachineNetworks  []Network `json:"machine_networks,omitempty"`
	Name             *string   `json:"name"`
	OpenshiftVersion *string   `json:"openshift_version"`
	PullSecret       *string   `json:"pull_secret"`
	ServiceNetworks  []Network `json:"service_networks,omitempty"`
	SSHPublicKey     string    `json:"ssh_public_key,omitempty"`
}

// String never shows the pull secret.
func (p ClusterCreateParams) String() string {
	return "ClusterCreateParams(" + deref(p.Name) + ")"
}

// V2ClusterUpdateParams is the body of PATCH /v2/clusters/{id}; nil
// leaves a field unchanged.
type V2ClusterUpdateParams struct {
	APIVips           *[]VIP            `json:"api_vips,omitempty"`
	BaseDNSDomain     *string           `json:"base_dns_domain,omitempty"`
	ClusterNetworks   *[]ClusterNetwork `json:"cluster_networks,omitempty"`
	ControlPlaneCount *int64            `json:"control_plane_count,omitempty"`
	HoldInstallation  *bool             `json:"hold_installation,omitempty"`
	IngressVips       *[]VIP            `json:"ingress_vips,omitempty"`
	MachineNetworks   *[]Network        `json:"machine_networks,omitempty"`
	Name              *string           `json:"name,omitempty"`
	NetworkType       *string           `json:"network_type,omitempty"`
	PullSecret        *string           `json:"pull_secret,omitempty"`
	ServiceNetworks   *[]Network        `json:"service_networks,omitempty"`
	SSHPublicKey      *string           `json:"ssh_public_key,omitempty"`
}

// String never shows the pull secret.
func (p V2ClusterUpdateParams) String() string { return "V2ClusterUpdateParams" }

// Credentials is upstream's credentials document of an installed cluster
// (GET /v2/clusters/{id}/credentials).
type Credentials struct {
	ConsoleURL string `json:"console_url"`
	Password   string `json:"password"`
	Username   string `json:"username"`
}

// String never shows the password.
func (c Credentials) String() string { return "Credentials(" + c.Username + ")" }

// GoString hides the password from %#v.
func (c Credentials) GoString() string { return c.String() }

// Manifest is upstream's manifest listing entry: a custom manifest of a
// cluster (its content is not listed).
type Manifest struct {
	FileName string `json:"file_name"`
	Folder   string `json:"folder"`
}

// CreateManifestParams is the body of POST /v2/clusters/{id}/manifests;
// Content is the manifest, base64-encoded.
type CreateManifestParams struct {
	Content  string `json:"content"`
	FileName string `json:"file_name"`
	Folder   string `json:"folder,omitempty"`
}

// FailingValidation is one validation that keeps a cluster from
// installing, as the 409 of actions/install lists them (rackboot's):
// the cluster's, or a host's when HostID is set.
type FailingValidation struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Message string `json:"message"`
	HostID  string `json:"host_id,omitempty"`
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
