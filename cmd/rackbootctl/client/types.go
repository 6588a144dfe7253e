package client

import (
	"encoding/json"

	"github.com/rackboot/rackboot/engine/models"
)

// Cluster is a cluster as the v2 API shows it (the fields rackbootctl
// uses; unknown fields are ignored).
type Cluster struct {
	APIVips           []VIP            `json:"api_vips,omitempty"`
	BaseDNSDomain     string           `json:"base_dns_domain,omitempty"`
	ClusterNetworks   []ClusterNetwork `json:"cluster_networks,omitempty"`
	ControlPlaneCount int64            `json:"control_plane_count,omitempty"`
	CPUArchitecture   string           `json:"cpu_architecture,omitempty"`
	CreatedAt         models.DateTime  `json:"created_at,omitempty"`
	// HighAvailabilityMode is "Full", or "None" for a single node.
	HighAvailabilityMode string               `json:"high_availability_mode,omitempty"`
	Hosts                []*Host              `json:"hosts,omitempty"`
	Href                 string               `json:"href,omitempty"`
	ID                   string               `json:"id"`
	IngressVips          []VIP                `json:"ingress_vips,omitempty"`
	InstallCompletedAt   models.DateTime      `json:"install_completed_at,omitempty"`
	InstallStartedAt     models.DateTime      `json:"install_started_at,omitempty"`
	Kind                 string               `json:"kind,omitempty"`
	MachineNetworks      []Network            `json:"machine_networks,omitempty"`
	Name                 string               `json:"name"`
	NetworkType          string               `json:"network_type,omitempty"`
	OpenshiftVersion     string               `json:"openshift_version,omitempty"`
	Progress             *ClusterProgressInfo `json:"progress,omitempty"`
	PullSecretSet        bool                 `json:"pull_secret_set,omitempty"`
	ServiceNetworks      []Network            `json:"service_networks,omitempty"`
	SSHPublicKey         string               `json:"ssh_public_key,omitempty"`
	Status               string               `json:"status"`
	StatusInfo           string               `json:"status_info"`
	StatusUpdatedAt      models.DateTime      `json:"status_updated_at,omitempty"`
	TotalHostCount       int64                `json:"total_host_count,omitempty"`
	UpdatedAt            models.DateTime      `json:"updated_at,omitempty"`
	ValidationsInfo      string               `json:"validations_info,omitempty"`
}

// ClusterProgressInfo is upstream's cluster installation progress.
type ClusterProgressInfo struct {
	FinalizingStagePercentage   int64 `json:"finalizing_stage_percentage,omitempty"`
	InstallingStagePercentage   int64 `json:"installing_stage_percentage,omitempty"`
	PreparingForInstallationPct int64 `json:"preparing_for_installation_stage_percentage,omitempty"`
	TotalPercentage             int64 `json:"total_percentage,omitempty"`
}

// ClusterNetwork is one pod network block.
type ClusterNetwork struct {
	Cidr       string `json:"cidr,omitempty"`
	ClusterID  string `json:"cluster_id,omitempty"`
	HostPrefix int64  `json:"host_prefix,omitempty"`
}

// Network is a service or machine network.
type Network struct {
	Cidr      string `json:"cidr,omitempty"`
	ClusterID string `json:"cluster_id,omitempty"`
}

// VIP is an API or ingress virtual IP.
type VIP struct {
	ClusterID string `json:"cluster_id,omitempty"`
	IP        string `json:"ip,omitempty"`
}

// ClusterCreateParams is the body of POST /v2/clusters.
type ClusterCreateParams struct {
	APIVips           []VIP            `json:"api_vips,omitempty"`
	BaseDNSDomain     string           `json:"base_dns_domain,omitempty"`
	ClusterNetworks   []ClusterNetwork `json:"cluster_networks,omitempty"`
	ControlPlaneCount int64            `json:"control_plane_count,omitempty"`
	CPUArchitecture   string           `json:"cpu_architecture,omitempty"`
	// HighAvailabilityMode "None" is a single node.
	HighAvailabilityMode string `json:"high_availability_mode,omitempty"`
	HoldInstallation     bool   `json:"hold_installation,omitempty"`
	// ImageSetRef names the image set to install (rackboot's).
	ImageSetRef      string    `json:"image_set_ref,omitempty"`
	IngressVips      []VIP     `json:"ingress_vips,omitempty"`
	MachineNetworks  []Network `json:"machine_networks,omitempty"`
	Name             string    `json:"name"`
	NetworkType      string    `json:"network_type,omitempty"`
	OpenshiftVersion string    `json:"openshift_version"`
	PullSecret       string    `json:"pull_secret"`
	ServiceNetworks  []Network `json:"service_networks,omitempty"`
	SSHPublicKey     string    `json:"ssh_public_key,omitempty"`
}

// String never shows the pull secret.
func (p ClusterCreateParams) String() string { return "ClusterCreateParams(" + p.Name + ")" }

// Proxy is the proxy handed to discovered hosts.
type Proxy struct {
	HTTPProxy  string `json:"http_proxy,omitempty"`
	HTTPSProxy string `json:"https_proxy,omitempty"`
	NoProxy    string `json:"no_proxy,omitempty"`
}

// InfraEnv is an infra-env as the v2 API shows it.
type InfraEnv struct {
	AdditionalNtpSources   string          `json:"additional_ntp_sources,omitempty"`
	ClusterID              string          `json:"cluster_id,omitempty"`
	CPUArchitecture        string          `json:"cpu_architecture,omitempty"`
	CreatedAt              models.DateTime `json:"created_at,omitempty"`
	DownloadURL            string          `json:"download_url,omitempty"`
	Href                   string          `json:"href,omitempty"`
	ID                     string          `json:"id"`
	IgnitionConfigOverride string          `json:"ignition_config_override,omitempty"`
	Kind                   string          `json:"kind,omitempty"`
	Name                   string          `json:"name"`
	OpenshiftVersion       string          `json:"openshift_version,omitempty"`
	Proxy                  *Proxy          `json:"proxy,omitempty"`
	PullSecretSet          bool            `json:"pull_secret_set,omitempty"`
	SSHAuthorizedKey       string          `json:"ssh_authorized_key,omitempty"`
	Type                   string          `json:"type,omitempty"`
	UpdatedAt              models.DateTime `json:"updated_at,omitempty"`
}

// InfraEnvCreateParams is the body of POST /v2/infra-envs.
type InfraEnvCreateParams struct {
	AdditionalNtpSources   string `json:"additional_ntp_sources,omitempty"`
	ClusterID              string `json:"cluster_id,omitempty"`
	CPUArchitecture        string `json:"cpu_architecture,omitempty"`
	IgnitionConfigOverride string `json:"ignition_config_override,omitempty"`
	ImageType              string `json:"image_type,omitempty"`
	Name                   string `json:"name"`
	OpenshiftVersion       string `json:"openshift_version,omitempty"`
	Proxy                  *Proxy `json:"proxy,omitempty"`
	PullSecret             string `json:"pull_secret"`
	SSHAuthorizedKey       string `json:"ssh_authorized_key,omitempty"`
	// StaticNetworkConfig holds one NMState document per host.
	StaticNetworkConfig []StaticNetworkConfig `json:"static_network_config,omitempty"`
}

// StaticNetworkConfig is one host's static network (upstream's
// HostStaticNetworkConfig): NMState YAML and the MACs of its NIC names.
type StaticNetworkConfig struct {
	MacInterfaceMap []MacInterface `json:"mac_interface_map" yaml:"mac_interface_map"`
	NetworkYAML     string         `json:"network_yaml" yaml:"network_yaml"`
}

// MacInterface maps a logical NIC name of the NMState document to a MAC.
type MacInterface struct {
	LogicalNicName string `json:"logical_nic_name" yaml:"logical_nic_name"`
	MacAddress     string `json:"mac_address" yaml:"mac_address"`
}

// InfraEnvUpdateParams is the body of PATCH /v2/infra-envs/{id}; nil
// fields are not sent. A non-nil empty StaticNetworkConfig removes the
// static networks.
type InfraEnvUpdateParams struct {
	AdditionalNtpSources   *string                `json:"additional_ntp_sources,omitempty"`
	IgnitionConfigOverride *string                `json:"ignition_config_override,omitempty"`
	Proxy                  *Proxy                 `json:"proxy,omitempty"`
	PullSecret             *string                `json:"pull_secret,omitempty"`
	SSHAuthorizedKey       *string                `json:"ssh_authorized_key,omitempty"`
	StaticNetworkConfig    *[]StaticNetworkConfig `json:"static_network_config,omitempty"`
}

// String never shows the pull secret.
func (p InfraEnvUpdateParams) String() string { return "InfraEnvUpdateParams" }

// String never shows the pull secret.
func (p InfraEnvCreateParams) String() string { return "InfraEnvCreateParams(" + p.Name + ")" }

// Host is models.Host plus rackboot's approval flag (upstream keeps
// approval on the Agent custom resource; rackboot's API carries it on the
// host).
type Host struct {
	models.Host
	Approved bool `json:"approved"`
}

// DiskConfig selects a disk for a role (upstream's disks_selected_config).
type DiskConfig struct {
	ID   string `json:"id"`
	Role string `json:"role,omitempty"`
}

// HostUpdateParams is the body of PATCH /v2/infra-envs/{id}/hosts/{id}.
// Nil fields are not sent.
type HostUpdateParams struct {
	Approved            *bool        `json:"approved,omitempty"`
	DisksSelectedConfig []DiskConfig `json:"disks_selected_config,omitempty"`
	HostName            *string      `json:"host_name,omitempty"`
	HostRole            *string      `json:"host_role,omitempty"`
	// IgnitionConfigOverrides is merged into the host's install Ignition
	// ("" removes it).
	IgnitionConfigOverrides *string `json:"ignition_config_overrides,omitempty"`
}

// BindHostParams is the body of POST .../hosts/{id}/actions/bind.
type BindHostParams struct {
	ClusterID string `json:"cluster_id"`
}

// Event is one entry of the event log.
type Event struct {
	Category   string          `json:"category,omitempty"`
	ClusterID  string          `json:"cluster_id,omitempty"`
	EventTime  models.DateTime `json:"event_time"`
	HostID     string          `json:"host_id,omitempty"`
	InfraEnvID string          `json:"infra_env_id,omitempty"`
	Message    string          `json:"message"`
	Name       string          `json:"name,omitempty"`
	Props      string          `json:"props,omitempty"`
	Severity   string          `json:"severity"`
}

// EventFilter selects events; empty fields do not filter.
type EventFilter struct {
	ClusterID  string
	InfraEnvID string
	HostID     string
}

// PresignedURL is the answer of GET .../downloads/image-url.
type PresignedURL struct {
	ExpiresAt models.DateTime `json:"expires_at,omitempty"`
	URL       string          `json:"url"`
}

// Error is upstream's error document (models.Error and InfraError).
type Error struct {
	Code    json.RawMessage `json:"code,omitempty"` // a string upstream, a number in InfraError
	Href    string          `json:"href,omitempty"`
	ID      int64           `json:"id,omitempty"`
	Kind    string          `json:"kind,omitempty"`
	Message string          `json:"message,omitempty"`
	Reason  string          `json:"reason,omitempty"`
	// Validations are what keeps a cluster from installing (the 409 of
	// actions/install).
	Validations []FailingValidation `json:"validations,omitempty"`
}

// FailingValidation is one validation that does not pass: the cluster's,
// or a host's when HostID is set.
type FailingValidation struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Message string `json:"message"`
	HostID  string `json:"host_id,omitempty"`
}
