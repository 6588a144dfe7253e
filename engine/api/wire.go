package api

import (
	"github.com/rackboot/rackboot/boot/nmstate"
	"github.com/rackboot/rackboot/engine/models"
)

// Kinds and hrefs as upstream.
const (
	kindCluster  = "Cluster"
	kindInfraEnv = "InfraEnv"
)

// IP is upstream's api_vips / ingress_vips element.
type IP struct {
	ClusterID string `json:"cluster_id,omitempty"`
	IP        string `json:"ip"`
}

// ClusterNetwork is upstream's cluster_networks element.
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

// Cluster is a cluster as the v2 API shows it.
type Cluster struct {
	APIVips                []IP             `json:"api_vips"`
	BaseDNSDomain          string           `json:"base_dns_domain,omitempty"`
	ClusterNetworks        []ClusterNetwork `json:"cluster_networks"`
	ControlPlaneCount      int64            `json:"control_plane_count,omitempty"`
	CPUArchitecture        string           `json:"cpu_architecture,omitempty"`
	CreatedAt              models.DateTime  `json:"created_at,omitempty"`
	EnabledHostCount       int64            `json:"enabled_host_count"`
	HighAvailabilityMode   string           `json:"high_availability_mode,omitempty"`
	HoldInstallation       bool             `json:"hold_installation,omitempty"`
	Hosts                  []*Host          `json:"hosts"`
	Href                   string           `json:"href"`
	ID                     string           `json:"id"`
	IngressVips            []IP             `json:"ingress_vips"`
	InstallCompletedAt     models.DateTime  `json:"install_completed_at,omitzero"`
	InstallConfigOverrides string           `json:"install_config_overrides,omitempty"`
	InstallStartedAt       models.DateTime  `json:"install_started_at,omitzero"`
	// ImageSetRef names the image set the cluster installs (rackboot's).
	ImageSetRef      string           `json:"image_set_ref,omitempty"`
	Kind             string           `json:"kind"`
	MachineNetworks  []Network        `json:"machine_networks"`
	Name             string           `json:"name,omitempty"`
	NetworkType      string           `json:"network_type,omitempty"`
	OpenshiftVersion string           `json:"openshift_version,omitempty"`
	Progress         *ClusterProgress `json:"progress,omitempty"`
	PullSecretSet    bool             `json:"pull_secret_set,omitempty"`
	ReadyHostCount   int64            `json:"ready_host_count"`
	ServiceNetworks  []Network        `json:"service_networks"`
	SSHPublicKey     string           `json:"ssh_public_key,omitempty"`
	Status           string           `json:"status"`
	StatusInfo       string           `json:"status_info"`
	StatusUpdatedAt  models.DateTime  `json:"status_updated_at,omitempty"`
	TotalHostCount   int64            `json:"total_host_count"`
	UpdatedAt        models.DateTime  `json:"updated_at,omitempty"`
	ValidationsInfo  string           `json:"validations_info,omitempty"`
}

// ClusterCreateParams is the body of POST /v2/clusters (the subset
// rackboot keeps; other upstream fields are ignored).
type ClusterCreateParams struct {
	APIVips           []IP             `json:"api_vips,omitempty"`
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
	IngressVips      []IP      `json:"ingress_vips,omitempty"`
	MachineNetworks  []Network `json:"machine_networks,omitempty"`
	Name             *string   `json:"name"`
	OpenshiftVersion *string   `json:"openshift_version"`
	PullSecret       *string   `json:"pull_secret"`
	ServiceNetworks  []Network `json:"service_networks,omitempty"`
	SSHPublicKey     string    `json:"ssh_public_key,omitempty"`
}

// V2ClusterUpdateParams is the body of PATCH /v2/clusters/{id}; nil
// leaves a field unchanged.
type V2ClusterUpdateParams struct {
	APIVips           *[]IP             `json:"api_vips,omitempty"`
	BaseDNSDomain     *string           `json:"base_dns_domain,omitempty"`
	ClusterNetworks   *[]ClusterNetwork `json:"cluster_networks,omitempty"`
	ControlPlaneCount *int64            `json:"control_plane_count,omitempty"`
	HoldInstallation  *bool             `json:"hold_installation,omitempty"`
	IngressVips       *[]IP             `json:"ingress_vips,omitempty"`
	MachineNetworks   *[]Network        `json:"machine_networks,omitempty"`
	Name              *string           `json:"name,omitempty"`
	NetworkType       *string           `json:"network_type,omitempty"`
	PullSecret        *string           `json:"pull_secret,omitempty"`
	ServiceNetworks   *[]Network        `json:"service_networks,omitempty"`
	SSHPublicKey      *string           `json:"ssh_public_key,omitempty"`
}

// Proxy is upstream's proxy object.
type Proxy struct {
	HTTPProxy  *string `json:"http_proxy,omitempty"`
	HTTPSProxy *string `json:"https_proxy,omitempty"`
	NoProxy    *string `json:"no_proxy,omitempty"`
}

// InfraEnv is an infra-env as the v2 API shows it.
type InfraEnv struct {
	AdditionalNtpSources   string          `json:"additional_ntp_sources,omitempty"`
	ClusterID              string          `json:"cluster_id,omitempty"`
	CPUArchitecture        string          `json:"cpu_architecture,omitempty"`
	CreatedAt              models.DateTime `json:"created_at"`
	DownloadURL            string          `json:"download_url,omitempty"`
	ExpiresAt              models.DateTime `json:"expires_at,omitempty"`
	Href                   string          `json:"href"`
	ID                     string          `json:"id"`
	IgnitionConfigOverride string          `json:"ignition_config_override,omitempty"`
	Kind                   string          `json:"kind"`
	Name                   string          `json:"name"`
	OpenshiftVersion       string          `json:"openshift_version,omitempty"`
	Proxy                  *Proxy          `json:"proxy,omitempty"`
	PullSecretSet          bool            `json:"pull_secret_set,omitempty"`
	SSHAuthorizedKey       string          `json:"ssh_authorized_key,omitempty"`
	Type                   string          `json:"type"`
	UpdatedAt              models.DateTime `json:"updated_at"`
}

// InfraEnvCreateParams is the body of POST /v2/infra-envs.
type InfraEnvCreateParams struct {
	AdditionalNtpSources   *string `json:"additional_ntp_sources,omitempty"`
	ClusterID              *string `json:"cluster_id,omitempty"`
	CPUArchitecture        string  `json:"cpu_architecture,omitempty"`
	IgnitionConfigOverride string  `json:"ignition_config_override,omitempty"`
	ImageType              string  `json:"image_type,omitempty"`
	Name                   *string `json:"name"`
	OpenshiftVersion       string  `json:"openshift_version,omitempty"`
	Proxy                  *Proxy  `json:"proxy,omitempty"`
	PullSecret             *string `json:"pull_secret"`
	SSHAuthorizedKey       *string `json:"ssh_authorized_key,omitempty"`
	// StaticNetworkConfig becomes NMState configs the infra-env selects.
	StaticNetworkConfig []nmstate.HostStaticNetworkConfig `json:"static_network_config,omitempty"`
}

// InfraEnvUpdateParams is the body of PATCH /v2/infra-envs/{id}.
type InfraEnvUpdateParams struct {
	AdditionalNtpSources   *string `json:"additional_ntp_sources,omitempty"`
	IgnitionConfigOverride *string `json:"ignition_config_override,omitempty"`
	ImageType              *string `json:"image_type,omitempty"`
	Proxy                  *Proxy  `json:"proxy,omitempty"`
	PullSecret             *string `json:"pull_secret,omitempty"`
	SSHAuthorizedKey       *string `json:"ssh_authorized_key,omitempty"`
	// StaticNetworkConfig, when set, replaces the infra-env's static
	// network configs (an empty list removes them).
	StaticNetworkConfig *[]nmstate.HostStaticNetworkConfig `json:"static_network_config,omitempty"`
}

// PresignedURL is the answer of downloads/image-url.
type PresignedURL struct {
	ExpiresAt models.DateTime `json:"expires_at,omitempty"`
	URL       string          `json:"url"`
}

// Host is models.Host plus rackboot's approval flag (upstream keeps
// approval on the Agent CR; rackboot shows it on the host).
type Host struct {
	models.Host
	Approved bool `json:"approved"`
}

// DiskConfig is upstream's disks_selected_config element.
type DiskConfig struct {
	ID   *string `json:"id"`
	Role string  `json:"role,omitempty"`
}

// HostUpdateParams is the body of PATCH .../hosts/{host_id} (upstream's
// fields plus approved).
type HostUpdateParams struct {
	Approved            *bool        `json:"approved,omitempty"`
	DisksSelectedConfig []DiskConfig `json:"disks_selected_config,omitempty"`
	HostName            *string      `json:"host_name,omitempty"`
	HostRole            *string      `json:"host_role,omitempty"`
	// IgnitionConfigOverrides is merged into the host's install Ignition
	// (checked with the Ignition parser; "" removes it).
	IgnitionConfigOverrides *string `json:"ignition_config_overrides,omitempty"`
}

// BindHostParams is the body of POST .../actions/bind.
type BindHostParams struct {
	ClusterID *string `json:"cluster_id"`
}

// Event is an event as the v2 API shows it.
type Event struct {
	Category   string          `json:"category,omitempty"`
	ClusterID  string          `json:"cluster_id,omitempty"`
	EventTime  models.DateTime `json:"event_time"`
	HostID     string          `json:"host_id,omitempty"`
	InfraEnvID string          `json:"infra_env_id,omitempty"`
	Message    string          `json:"message"`
	Name       string          `json:"name,omitempty"`
	Props      string          `json:"props,omitempty"`
	RequestID  string          `json:"request_id,omitempty"`
	Severity   string          `json:"severity"`
}

// ClusterProgress is upstream's cluster progress: the share of the
// installation done, from the hosts' stages.
type ClusterProgress struct {
	TotalPercentage int64 `json:"total_percentage"`
}
