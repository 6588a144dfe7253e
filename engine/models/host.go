package models

// Host is a host as the v2 API shows it. Text fields such as Inventory,
// Connectivity and ValidationsInfo hold JSON documents as strings, exactly
// as upstream sends them.
type Host struct {
	APIVipConnectivity       string            `json:"api_vip_connectivity,omitempty"`
	Bootstrap                bool              `json:"bootstrap,omitempty"`
	CheckedInAt              DateTime          `json:"checked_in_at,omitempty"`
	ClusterID                string            `json:"cluster_id,omitempty"`
	ConnectionTimedOut       bool              `json:"connection_timed_out,omitempty"`
	Connectivity             string            `json:"connectivity,omitempty"`
	CreatedAt                DateTime          `json:"created_at,omitempty"`
	DiscoveryAgentVersion    string            `json:"discovery_agent_version,omitempty"`
	DisksInfo                string            `json:"disks_info,omitempty"`
	DisksToBeFormatted       string            `json:"disks_to_be_formatted,omitempty"`
	DomainNameResolutions    string            `json:"domain_name_resolutions,omitempty"`
	FreeAddresses            string            `json:"free_addresses,omitempty"`
	Href                     string            `json:"href"`
	ID                       string            `json:"id"`
	IgnitionConfigOverrides  string            `json:"ignition_config_overrides,omitempty"`
	IgnitionEndpointTokenSet bool              `json:"ignition_endpoint_token_set,omitempty"`
	ImagesStatus             string            `json:"images_status,omitempty"`
	InfraEnvID               string            `json:"infra_env_id,omitempty"`
	InstallationDiskID       string            `json:"installation_disk_id,omitempty"`
	InstallationDiskPath     string            `json:"installation_disk_path,omitempty"`
	InstallerArgs            string            `json:"installer_args,omitempty"`
	InstallerVersion         string            `json:"installer_version,omitempty"`
	Inventory                string            `json:"inventory,omitempty"`
	Kind                     string            `json:"kind"`
	LogsCollectedAt          DateTime          `json:"logs_collected_at,omitempty"`
	LogsInfo                 string            `json:"logs_info,omitempty"`
	LogsStartedAt            DateTime          `json:"logs_started_at,omitempty"`
	MachineConfigPoolName    string            `json:"machine_config_pool_name,omitempty"`
	MediaStatus              string            `json:"media_status,omitempty"`
	NodeLabels               string            `json:"node_labels,omitempty"`
	NtpSources               string            `json:"ntp_sources,omitempty"`
	Progress                 *HostProgressInfo `json:"progress,omitempty"`
	ProgressStages           []HostStage       `json:"progress_stages"`
	RegisteredAt             DateTime          `json:"registered_at,omitempty"`
	RequestedHostname        string            `json:"requested_hostname,omitempty"`
	Role                     HostRole          `json:"role,omitempty"`
	SkipFormattingDisks      string            `json:"skip_formatting_disks,omitempty"`
	StageStartedAt           DateTime          `json:"stage_started_at,omitempty"`
	StageUpdatedAt           DateTime          `json:"stage_updated_at,omitempty"`
	Status                   string            `json:"status"`
	StatusInfo               string            `json:"status_info"`
	StatusUpdatedAt          DateTime          `json:"status_updated_at,omitempty"`
	SuggestedRole            HostRole          `json:"suggested_role,omitempty"`
	TangConnectivity         string            `json:"tang_connectivity,omitempty"`
	Timestamp                int64             `json:"timestamp,omitempty"`
	UpdatedAt                DateTime          `json:"updated_at,omitempty"`
	UserName                 string            `json:"user_name,omitempty"`
	ValidationsInfo          string            `json:"validations_info,omitempty"`
}

// Values of Host.Kind and Host.MediaStatus.
const (
	HostKindHost                     = "Host"
	HostKindAddToExistingClusterHost = "AddToExistingClusterHost"
	HostMediaStatusConnected         = "connected"
	HostMediaStatusDisconnected      = "disconnected"
)

// Host states (Host.Status).
const (
	HostStatusDiscovering                 = "discovering"
	HostStatusKnown                       = "known"
	HostStatusDisconnected                = "disconnected"
	HostStatusInsufficient                = "insufficient"
	HostStatusDisabled                    = "disabled"
	HostStatusPreparingForInstallation    = "preparing-for-installation"
	HostStatusPreparingFailed             = "preparing-failed"
	HostStatusPreparingSuccessful         = "preparing-successful"
	HostStatusPendingForInput             = "pending-for-input"
	HostStatusInstalling                  = "installing"
	HostStatusInstallingInProgress        = "installing-in-progress"
	HostStatusInstallingPendingUserAction = "installing-pending-user-action"
	HostStatusResettingPendingUserAction  = "resetting-pending-user-action"
	HostStatusInstalled                   = "installed"
	HostStatusError                       = "error"
	HostStatusResetting                   = "resetting"
	HostStatusAddedToExistingCluster      = "added-to-existing-cluster"
	HostStatusCancelled                   = "cancelled"
	HostStatusBinding                     = "binding"
	HostStatusUnbinding                   = "unbinding"
	HostStatusUnbindingPendingUserAction  = "unbinding-pending-user-action"
	HostStatusKnownUnbound                = "known-unbound"
	HostStatusDisconnectedUnbound         = "disconnected-unbound"
	HostStatusInsufficientUnbound         = "insufficient-unbound"
	HostStatusDisabledUnbound             = "disabled-unbound"
	HostStatusDiscoveringUnbound          = "discovering-unbound"
	HostStatusReclaiming                  = "reclaiming"
	HostStatusReclaimingRebooting         = "reclaiming-rebooting"
)

// HostProgressInfo is the installation progress of a host.
type HostProgressInfo struct {
	CurrentStage           HostStage `json:"current_stage,omitempty"`
	InstallationPercentage int64     `json:"installation_percentage,omitempty"`
	ProgressInfo           string    `json:"progress_info,omitempty"`
	StageStartedAt         DateTime  `json:"stage_started_at,omitempty"`
	StageTimedOut          bool      `json:"stage_timed_out,omitempty"`
	StageUpdatedAt         DateTime  `json:"stage_updated_at,omitempty"`
}

// HostRole is the role of a host in its cluster.
type HostRole string

// Host roles.
const (
	HostRoleAutoAssign HostRole = "auto-assign"
	HostRoleMaster     HostRole = "master"
	HostRoleArbiter    HostRole = "arbiter"
	HostRoleWorker     HostRole = "worker"
	HostRoleBootstrap  HostRole = "bootstrap"
)

// HostStage is an installation stage reported by the agent.
type HostStage string

// Installation stages.
const (
	HostStageStartingInstallation      HostStage = "Starting installation"
	HostStageWaitingForControlPlane    HostStage = "Waiting for control plane"
	HostStageWaitingForBootkube        HostStage = "Waiting for bootkube"
	HostStageWaitingForController      HostStage = "Waiting for controller"
	HostStageInstalling                HostStage = "Installing"
	HostStageWritingImageToDisk        HostStage = "Writing image to disk"
	HostStageCopyingRegistryDataToDisk HostStage = "Copying registry data to disk"
	HostStageRebooting                 HostStage = "Rebooting"
	HostStageWaitingForIgnition        HostStage = "Waiting for ignition"
	HostStageConfiguring               HostStage = "Configuring"
	HostStageJoined                    HostStage = "Joined"
	HostStageDone                      HostStage = "Done"
	HostStageFailed                    HostStage = "Failed"
)

// APIHost is a host as rackboot's user API shows it: Host plus the
// approval flag (upstream keeps approval on the Agent custom resource;
// rackboot's API carries it on the host).
type APIHost struct {
	Host
	Approved bool `json:"approved"`
}

// HostUpdateParams is the body of PATCH /v2/infra-envs/{id}/hosts/{id}
// (upstream's fields plus approved); nil leaves a field unchanged.
type HostUpdateParams struct {
	Approved            *bool        `json:"approved,omitempty"`
	DisksSelectedConfig []DiskConfig `json:"disks_selected_config,omitempty"`
	HostName            *string      `json:"host_name,omitempty"`
	HostRole            *string      `json:"host_role,omitempty"`
	// IgnitionConfigOverrides is merged into the host's install Ignition
	// (checked with the Ignition parser; "" removes it).
	IgnitionConfigOverrides *string `json:"ignition_config_overrides,omitempty"`
}

// DiskConfig is upstream's disks_selected_config element: a disk (by its
// inventory id) and the role it gets, e.g. "install".
type DiskConfig struct {
	ID   *string `json:"id"`
	Role string  `json:"role,omitempty"`
}

// BindHostParams is the body of POST .../hosts/{id}/actions/bind.
type BindHostParams struct {
	ClusterID *string `json:"cluster_id"`
}
