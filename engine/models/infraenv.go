package models

// Proxy is upstream's proxy object: the proxy handed to discovered hosts.
type Proxy struct {
	HTTPProxy  *string `json:"http_proxy,omitempty"`
	HTTPSProxy *string `json:"https_proxy,omitempty"`
	NoProxy    *string `json:"no_proxy,omitempty"`
}

// InfraEnv is an infra-env as the v2 API shows it
// (GET /v2/infra-envs/{id}).
type InfraEnv struct {
	AdditionalNtpSources   string   `json:"additional_ntp_sources,omitempty"`
	ClusterID              string   `json:"cluster_id,omitempty"`
	CPUArchitecture        string   `json:"cpu_architecture,omitempty"`
	CreatedAt              DateTime `json:"created_at"`
	DownloadURL            string   `json:"download_url,omitempty"`
	ExpiresAt              DateTime `json:"expires_at,omitempty"`
	Href                   string   `json:"href"`
	ID                     string   `json:"id"`
	IgnitionConfigOverride string   `json:"ignition_config_override,omitempty"`
	// KernelArguments is, as upstream's, a JSON string: the
	// KernelArguments list ("" when there are none).
	KernelArguments  string   `json:"kernel_arguments,omitempty"`
	Kind             string   `json:"kind"`
	Name             string   `json:"name"`
	OpenshiftVersion string   `json:"openshift_version,omitempty"`
	Proxy            *Proxy   `json:"proxy,omitempty"`
	PullSecretSet    bool     `json:"pull_secret_set,omitempty"`
	SSHAuthorizedKey string   `json:"ssh_authorized_key,omitempty"`
	Type             string   `json:"type"`
	UpdatedAt        DateTime `json:"updated_at"`
}

// InfraEnvCreateParams is the body of POST /v2/infra-envs. Name and
// PullSecret are required.
type InfraEnvCreateParams struct {
	AdditionalNtpSources   *string `json:"additional_ntp_sources,omitempty"`
	ClusterID              *string `json:"cluster_id,omitempty"`
	CPUArchitecture        string  `json:"cpu_architecture,omitempty"`
	IgnitionConfigOverride string  `json:"ignition_config_override,omitempty"`
	ImageType              string  `json:"image_type,omitempty"`
	// KernelArguments change the discovery image's kernel arguments.
	KernelArguments  KernelArguments `json:"kernel_arguments,omitempty"`
	Name             *string         `json:"name"`
	OpenshiftVersion string          `json:"openshift_version,omitempty"`
	Proxy            *Proxy          `json:"proxy,omitempty"`
	PullSecret       *string         `json:"pull_secret"`
	SSHAuthorizedKey *string         `json:"ssh_authorized_key,omitempty"`
	// StaticNetworkConfig holds one NMState document per host; rackboot
	// keeps them as NMState configs the infra-env selects.
	StaticNetworkConfig []HostStaticNetworkConfig `json:"static_network_config,omitempty"`
}

// String never shows the pull secret.
func (p InfraEnvCreateParams) String() string {
	return "InfraEnvCreateParams(" + deref(p.Name) + ")"
}

// InfraEnvUpdateParams is the body of PATCH /v2/infra-envs/{id}; nil
// leaves a field unchanged.
type InfraEnvUpdateParams struct {
	AdditionalNtpSources   *string `json:"additional_ntp_sources,omitempty"`
	IgnitionConfigOverride *string `json:"ignition_config_override,omitempty"`
	ImageType              *string `json:"image_type,omitempty"`
	// KernelArguments, when set, replaces the list (empty: none).
	KernelArguments  *KernelArguments `json:"kernel_arguments,omitempty"`
	Proxy            *Proxy           `json:"proxy,omitempty"`
	PullSecret       *string          `json:"pull_secret,omitempty"`
	SSHAuthorizedKey *string          `json:"ssh_authorized_key,omitempty"`
	// StaticNetworkConfig, when set, replaces the infra-env's static
	// network configs (an empty list removes them).
	StaticNetworkConfig *[]HostStaticNetworkConfig `json:"static_network_config,omitempty"`
}

// String never shows the pull secret.
func (p InfraEnvUpdateParams) String() string { return "InfraEnvUpdateParams" }

// HostStaticNetworkConfig is one element of upstream's
// static_network_config list: one host's NMState YAML and the MACs of the
// NIC names it uses. The yaml tags let rackbootctl read the same list
// from a YAML file.
type HostStaticNetworkConfig struct {
	MACInterfaceMap []MACInterface `json:"mac_interface_map" yaml:"mac_interface_map"`
	NetworkYAML     string         `json:"network_yaml" yaml:"network_yaml"`
}

// MACInterface maps a logical NIC name of the NMState document to a MAC.
type MACInterface struct {
	LogicalNICName string `json:"logical_nic_name" yaml:"logical_nic_name"`
	MACAddress     string `json:"mac_address" yaml:"mac_address"`
}

// PresignedURL is the answer of GET .../downloads/image-url.
type PresignedURL struct {
	ExpiresAt DateTime `json:"expires_at,omitempty"`
	URL       string   `json:"url"`
}

// KernelArgument is one change to the discovery image's kernel arguments
// (upstream's kernel_argument): Operation append, replace or delete, and
// the argument.
type KernelArgument struct {
	Operation string `json:"operation"`
	Value     string `json:"value"`
}

// KernelArguments is upstream's kernel_arguments list.
type KernelArguments []KernelArgument

// Kernel argument operations.
const (
	KernelArgAppend  = "append"
	KernelArgReplace = "replace"
	KernelArgDelete  = "delete"
)
