package models

// InstallStepArgs is the single argument of the `install` step, as a JSON
// string. The first fields are upstream's (InstallCmdRequest); the image
// fields are rackboot's: the agent streams the disk image itself instead of
// running an installer container.
type InstallStepArgs struct {
	Role       HostRole `json:"role"`
	ClusterID  string   `json:"cluster_id"`
	HostID     string   `json:"host_id"`
	InfraEnvID string   `json:"infra_env_id"`
	// BootDevice is the installation disk, e.g. /dev/vda or a
	// /dev/disk/by-path name.
	BootDevice    string   `json:"boot_device"`
	InstallerArgs []string `json:"installer_args,omitempty"`
	// ImageURL is where the disk image is streamed from (rackbootd's boot
	// HTTP server), ImageSHA256 its hex sha256, ImageSize its length in
	// bytes (0: unknown).
	ImageURL    string `json:"image_url"`
	ImageSHA256 string `json:"image_sha256"`
	ImageSize   int64  `json:"image_size,omitempty"`
	// IgnitionURL is the host's install Ignition: the API's
	// GET .../hosts/{host_id}/downloads/ignition, answered with
	// HostIgnitionParams and the agent's token.
	IgnitionURL string `json:"ignition_url"`
	// ExternalReboot: a BareMetalHost drives this host, so after writing
	// the disk the agent reports Rebooting and does not reboot; the BMH
	// controller ejects the media, sets boot-once Hdd and resets.
	ExternalReboot bool `json:"external_reboot,omitempty"`
	// WipeDisks are the host's other disks whose partition tables the
	// agent wipes (both GPT copies and the MBR) before it writes the boot
	// device: a BareMetalHost with automatedCleaningMode metadata, as
	// Ironic's metadata cleaning.
	WipeDisks []string `json:"wipe_disks,omitempty"`
}

// InstallerArgsParams is the body of PATCH .../hosts/{host_id}/installer-args:
// coreos-installer flags and their values, in order.
type InstallerArgsParams struct {
	Args []string `json:"args"`
}

// HostIgnitionParams is the answer of GET .../hosts/{host_id}/downloads/ignition.
type HostIgnitionParams struct {
	Config string `json:"config"`
}

// HostProgress is the body of PUT .../hosts/{host_id}/progress.
type HostProgress struct {
	CurrentStage HostStage `json:"current_stage"`
	ProgressInfo string    `json:"progress_info,omitempty"`
}
