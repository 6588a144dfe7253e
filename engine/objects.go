package engine

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/rackboot/rackboot/boot/kargs"
)

// Kind names a kind of object in the model; it is also the kind of a Change.
type Kind string

// Kinds of objects.
const (
	KindInfraEnv      Kind = "infra-env"
	KindCluster       Kind = "cluster"
	KindHost          Kind = "host"
	KindNMStateConfig Kind = "nmstate-config"
	KindImageSet      Kind = "image-set"
	KindSecret        Kind = "secret"
	KindLease         Kind = "lease"
	KindEvent         Kind = "event"
)

// Meta is kept by the model on every named object: set when the object is
// stored, never by the command that stores it.
type Meta struct {
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Revision is the log index of the command that last changed the
	// object.
	Revision uint64 `json:"revision"`
}

func (m *Meta) meta() *Meta { return m }

// Proxy is the proxy configuration handed to discovered hosts.
type Proxy struct {
	HTTPProxy  string `json:"http_proxy,omitempty"`
	HTTPSProxy string `json:"https_proxy,omitempty"`
	NoProxy    string `json:"no_proxy,omitempty"`
}

// InfraEnv is a discovery environment: the image hosts boot and the cluster
// (if any) they join. Ids are UUID strings.
type InfraEnv struct {
	Meta
	ID        string `json:"id"`
	Name      string `json:"name"`
	ClusterID string `json:"cluster_id,omitempty"` // empty: late binding
	// PullSecretRef names the Secret holding the pull secret.
	PullSecretRef    string            `json:"pull_secret_ref,omitempty"`
	SSHAuthorizedKey string            `json:"ssh_authorized_key,omitempty"`
	Proxy            *Proxy            `json:"proxy,omitempty"`
	NTPSources       []string          `json:"ntp_sources,omitempty"`
	IgnitionOverride string            `json:"ignition_config_override,omitempty"`
	Labels           map[string]string `json:"labels,omitempty"`
	// StaticNetworkSelector selects the NMStateConfigs whose labels match.
	StaticNetworkSelector map[string]string `json:"static_network_selector,omitempty"`
	CPUArchitecture       string            `json:"cpu_architecture,omitempty"`
	ImageType             string            `json:"image_type,omitempty"`
	// KernelArguments change the discovery kernel arguments (upstream's
	// kernel_arguments), applied in order.
	KernelArguments []KernelArgument `json:"kernel_arguments,omitempty"`
}

// KernelArgument is one change to the discovery kernel arguments:
// Operation "append", "replace" or "delete", and the argument. boot/kargs
// checks and applies them.
type KernelArgument = kargs.Arg

// ClusterNetwork is one pod network block.
type ClusterNetwork struct {
	CIDR       string `json:"cidr"`
	HostPrefix int    `json:"host_prefix"`
}

// Cluster is an OpenShift cluster being assembled from hosts.
type Cluster struct {
	Meta
	ID                string           `json:"id"`
	Name              string           `json:"name"`
	BaseDomain        string           `json:"base_dns_domain,omitempty"`
	OpenshiftVersion  string           `json:"openshift_version,omitempty"`
	ImageSetRef       string           `json:"image_set_ref,omitempty"`
	PullSecretRef     string           `json:"pull_secret_ref,omitempty"`
	SSHPublicKey      string           `json:"ssh_public_key,omitempty"`
	ClusterNetworks   []ClusterNetwork `json:"cluster_networks,omitempty"`
	ServiceNetworks   []string         `json:"service_networks,omitempty"`
	MachineNetworks   []string         `json:"machine_networks,omitempty"`
	APIVIPs           []string         `json:"api_vips,omitempty"`
	IngressVIPs       []string         `json:"ingress_vips,omitempty"`
	ControlPlaneCount int              `json:"control_plane_count,omitempty"`
	// NetworkType is OVNKubernetes or OpenShiftSDN ("": OVNKubernetes).
	NetworkType string `json:"network_type,omitempty"`
	// InstallConfigOverrides is a JSON document merged into the generated
	// install-config ("": none).
	InstallConfigOverrides string `json:"install_config_overrides,omitempty"`
	// HoldInstallation keeps a ready cluster from installing.
	HoldInstallation bool `json:"hold_installation,omitempty"`
	// Manifests are the custom manifests handed to the generator, sorted
	// by folder and file name.
	Manifests []Manifest `json:"manifests,omitempty"`
	// InstallStartedAt is when the install action was accepted (zero: not
	// installing); InstallCompletedAt when the cluster became installed.
	InstallStartedAt   time.Time `json:"install_started_at,omitzero"`
	InstallCompletedAt time.Time `json:"install_completed_at,omitzero"`
	Status             string    `json:"status,omitempty"`
	StatusInfo         string    `json:"status_info,omitempty"`
	StatusUpdatedAt    time.Time `json:"status_updated_at"`
}

// Validation is the latest result of one host or cluster validation.
type Validation struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Status   string `json:"status"`
	Message  string `json:"message"`
}

// Progress is a host's installation progress.
type Progress struct {
	CurrentStage           string    `json:"current_stage,omitempty"`
	ProgressInfo           string    `json:"progress_info,omitempty"`
	InstallationPercentage int       `json:"installation_percentage,omitempty"`
	StageStartedAt         time.Time `json:"stage_started_at"`
	StageUpdatedAt         time.Time `json:"stage_updated_at"`
}

// Host is a machine that registered from an infra-env. Its id is the
// agent's host UUID, unique across infra-envs.
type Host struct {
	Meta
	ID                 string          `json:"id"`
	InfraEnvID         string          `json:"infra_env_id"`
	ClusterID          string          `json:"cluster_id,omitempty"` // empty: not bound
	Status             string          `json:"status,omitempty"`
	StatusInfo         string          `json:"status_info,omitempty"`
	StatusUpdatedAt    time.Time       `json:"status_updated_at"`
	Inventory          json.RawMessage `json:"inventory,omitempty"`
	RequestedHostname  string          `json:"requested_hostname,omitempty"`
	Role               string          `json:"role,omitempty"`
	Approved           bool            `json:"approved,omitempty"`
	InstallationDiskID string          `json:"installation_disk_id,omitempty"`
	CheckedInAt        time.Time       `json:"checked_in_at"`
	Progress           Progress        `json:"progress"`
	Validations        []Validation    `json:"validations,omitempty"`
	AgentVersion       string          `json:"discovery_agent_version,omitempty"`
	// Bootstrap marks the control-plane host that bootstraps the cluster.
	Bootstrap bool `json:"bootstrap,omitempty"`
	// IgnitionOverride is merged into the host's install Ignition ("":
	// none).
	IgnitionOverride string `json:"ignition_config_overrides,omitempty"`
	// Day2 marks a host installed into an already installed cluster.
	Day2 bool `json:"day2,omitempty"`
	// BMHName names the BareMetalHost paired with this host ("": none);
	// the BMH controller sets it when it pairs the host by MAC.
	BMHName string `json:"bmh_name,omitempty"`
	// InstallerArgs (a JSON array of strings), MachineConfigPool and
	// Labels come from the paired BMH's annotations (upstream's BMAC).
	InstallerArgs     string            `json:"installer_args,omitempty"`
	MachineConfigPool string            `json:"machine_config_pool_name,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	StepResults
}

// StepResults are what the agent last reported outside its inventory: the
// compact JSON output of the latest successful step of each type (nil:
// none yet) and the clock it sent with its last poll. Registering again
// clears them.
type StepResults struct {
	// NTPSources is the ntp-synchronizer output.
	NTPSources json.RawMessage `json:"ntp_sources,omitempty"`
	// DomainResolutions is the domain-resolution output.
	DomainResolutions json.RawMessage `json:"domain_name_resolutions,omitempty"`
	// Connectivity is the connectivity-check output.
	Connectivity json.RawMessage `json:"connectivity,omitempty"`
	// HostTime is the host's clock in unix seconds, as the agent sent it
	// (?timestamp= of next-steps); 0: unknown.
	HostTime int64 `json:"timestamp,omitempty"`
	// DisksInfo is upstream's disks_info: per disk path, the outcome of
	// the installation-disk-speed-check ({"disk_speed": {"tested",
	// "exit_code", "speed_ms"}}).
	DisksInfo json.RawMessage `json:"disks_info,omitempty"`
}

// MACInterface maps a MAC address to an interface name of an NMState config.
type MACInterface struct {
	MAC  string `json:"mac_address"`
	Name string `json:"logical_nic_name"`
}

// NMStateConfig is a static network configuration, selected by infra-envs
// through its labels.
type NMStateConfig struct {
	Meta
	Name       string            `json:"name"`
	Labels     map[string]string `json:"labels,omitempty"`
	Config     string            `json:"config"` // NMState YAML
	Interfaces []MACInterface    `json:"interfaces,omitempty"`
}

// ImageSet names an OpenShift release and the boot images of its discovery
// image.
type ImageSet struct {
	Meta
	Name            string `json:"name"`
	Version         string `json:"version,omitempty"`
	ReleaseImage    string `json:"release_image,omitempty"`
	CPUArchitecture string `json:"cpu_architecture,omitempty"`
	// Profile names the boot profile (kernel, initrd) hosts of this image
	// set boot.
	Profile string `json:"profile,omitempty"`
	// Thresholds override the validations' hardware minimums for hosts of
	// this image set (nil: the daemon's configured or upstream's).
	Thresholds *Thresholds `json:"thresholds,omitempty"`
	// Source is ImageSetSourceConfig for an image set the configuration
	// file created ("" otherwise).
	Source string `json:"source,omitempty"`
	// DiskImage is the OS disk image installed hosts get (zero: none, the
	// image set cannot install).
	DiskImage DiskImage `json:"disk_image,omitzero"`
	// Discovery holds the sha256 of the discovery artifacts.
	Discovery DiscoveryArtifacts `json:"discovery,omitzero"`
	// Generator says where role Ignition comes from (GeneratorUserConfigs,
	// GeneratorOpenShiftInstall; "": user configs), RoleIgnitionDir holds
	// bootstrap.ign, master.ign and worker.ign for user configs and
	// OpenShiftInstall is the openshift-install binary.
	Generator        string `json:"generator,omitempty"`
	RoleIgnitionDir  string `json:"role_ignition_dir,omitempty"`
	OpenShiftInstall string `json:"openshift_install,omitempty"`
	// BaseISO is the discovery ISO (with an Ignition embed area) that
	// virtual-media hosts of this image set boot, customised per
	// infra-env by engine/isoserve ("": none).
	BaseISO string `json:"base_iso,omitempty"`
	// LiveRootfs is a CoreOS image set's live rootfs, served at
	// /images/{name}/rootfs.img for coreos.live.rootfs_url (zero: none).
	LiveRootfs DiskImage `json:"live_rootfs,omitzero"`
}

// DiskImage is a raw disk image on the appliance: its path, hex sha256 and
// size in bytes.
type DiskImage struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// DiscoveryArtifacts are the hex sha256 of an image set's discovery
// artifacts ("": not recorded).
type DiscoveryArtifacts struct {
	KernelSHA256 string `json:"kernel_sha256,omitempty"`
	InitrdSHA256 string `json:"initrd_sha256,omitempty"`
	RootfsSHA256 string `json:"rootfs_sha256,omitempty"`
	ISOSHA256    string `json:"iso_sha256,omitempty"`
}

// Manifest is one custom manifest of a cluster (upstream's folder is
// "manifests" or "openshift").
type Manifest struct {
	Folder   string `json:"folder"`
	FileName string `json:"file_name"`
	Content  []byte `json:"content"`
}

// Secret is named secret data (pull secrets, BMC credentials). Its String
// and LogValue never show the data.
type Secret struct {
	Meta
	Name string            `json:"name"`
	Type string            `json:"type,omitempty"`
	Data map[string][]byte `json:"data,omitempty"`
}

// String names the secret without its data.
func (s Secret) String() string { return fmt.Sprintf("Secret(%s, %d keys)", s.Name, len(s.Data)) }

// LogValue logs the secret without its data.
func (s Secret) LogValue() slog.Value {
	return slog.GroupValue(slog.String("name", s.Name), slog.Int("keys", len(s.Data)))
}

// Event is one entry of the event log. Seq and Time are set by the model.
type Event struct {
	Seq        uint64            `json:"seq"`
	Time       time.Time         `json:"time"`
	Name       string            `json:"name,omitempty"`
	Severity   string            `json:"severity"`
	Message    string            `json:"message"`
	ClusterID  string            `json:"cluster_id,omitempty"`
	InfraEnvID string            `json:"infra_env_id,omitempty"`
	HostID     string            `json:"host_id,omitempty"`
	Props      map[string]string `json:"props,omitempty"`
}
