package models

// Inventory is the hardware report an agent sends as the output of the
// "inventory" step (a JSON document inside StepReply.Output).
type Inventory struct {
	BmcAddress   string               `json:"bmc_address,omitempty"`
	BmcV6address string               `json:"bmc_v6address,omitempty"`
	Boot         *Boot                `json:"boot,omitempty"`
	CPU          *CPU                 `json:"cpu,omitempty"`
	Disks        []*Disk              `json:"disks"`
	Gpus         []*Gpu               `json:"gpus"`
	Hostname     string               `json:"hostname,omitempty"`
	Interfaces   []*Interface         `json:"interfaces"`
	Memory       *Memory              `json:"memory,omitempty"`
	Routes       []*Route             `json:"routes"`
	SystemVendor *SystemVendor        `json:"system_vendor,omitempty"`
	TpmVersion   string               `json:"tpm_version,omitempty"`
	Truncation   *InventoryTruncation `json:"truncation,omitempty"`
}

// TPM versions reported in Inventory.TpmVersion.
const (
	TpmVersionNone = "none"
	TpmVersion12   = "1.2"
	TpmVersion20   = "2.0"
)

// InventoryTruncation says that the agent left parts of the inventory out.
type InventoryTruncation struct {
	Reasons []string `json:"reasons"`
	Type    string   `json:"type"`
}

// Values of InventoryTruncation.Type.
const (
	InventoryTruncationTypePartial = "partial"
	InventoryTruncationTypeFull    = "full"
)

// Boot describes how the host booted the discovery image.
type Boot struct {
	CommandLine     string          `json:"command_line,omitempty"`
	CurrentBootMode string          `json:"current_boot_mode,omitempty"`
	DeviceType      string          `json:"device_type,omitempty"`
	PxeInterface    string          `json:"pxe_interface,omitempty"`
	SecureBootState SecureBootState `json:"secure_boot_state,omitempty"`
}

// Values of Boot.CurrentBootMode and Boot.DeviceType.
const (
	BootModeBIOS             = "bios"
	BootModeUEFI             = "uefi"
	BootDeviceTypePersistent = "persistent"
	BootDeviceTypeEphemeral  = "ephemeral"
)

// SecureBootState is the state of UEFI secure boot.
type SecureBootState string

// Secure boot states.
const (
	SecureBootStateUnknown      SecureBootState = "Unknown"
	SecureBootStateNotSupported SecureBootState = "NotSupported"
	SecureBootStateEnabled      SecureBootState = "Enabled"
	SecureBootStateDisabled     SecureBootState = "Disabled"
)

// CPU describes the host's processors. Architecture uses the kernel's
// names (x86_64, aarch64, ppc64le, s390x); Frequency is in MHz.
type CPU struct {
	Architecture string   `json:"architecture,omitempty"`
	Count        int64    `json:"count,omitempty"`
	Flags        []string `json:"flags"`
	Frequency    float64  `json:"frequency,omitempty"`
	ModelName    string   `json:"model_name,omitempty"`
}

// Disk is one block device. ID is ByID when set, else ByPath, else Path.
type Disk struct {
	Bootable                bool                        `json:"bootable,omitempty"`
	ByID                    string                      `json:"by_id,omitempty"`
	ByPath                  string                      `json:"by_path,omitempty"`
	DriveType               DriveType                   `json:"drive_type,omitempty"`
	HasUUID                 bool                        `json:"has_uuid,omitempty"`
	Hctl                    string                      `json:"hctl,omitempty"`
	Holders                 string                      `json:"holders,omitempty"`
	ID                      string                      `json:"id,omitempty"`
	InstallationEligibility DiskInstallationEligibility `json:"installation_eligibility,omitempty"`
	IoPerf                  *IoPerf                     `json:"io_perf,omitempty"`
	IsInstallationMedia     bool                        `json:"is_installation_media,omitempty"`
	Iscsi                   *Iscsi                      `json:"iscsi,omitempty"`
	Model                   string                      `json:"model,omitempty"`
	Name                    string                      `json:"name,omitempty"`
	PartitionTypes          string                      `json:"partitionTypes,omitempty"`
	Path                    string                      `json:"path,omitempty"`
	Removable               bool                        `json:"removable,omitempty"`
	Serial                  string                      `json:"serial,omitempty"`
	SizeBytes               int64                       `json:"size_bytes,omitempty"`
	Smart                   string                      `json:"smart,omitempty"`
	Vendor                  string                      `json:"vendor,omitempty"`
	Wwn                     string                      `json:"wwn,omitempty"`
}

// DiskInstallationEligibility says whether the agent thinks a disk can take
// the installation, and if not, why.
type DiskInstallationEligibility struct {
	Eligible           bool     `json:"eligible,omitempty"`
	NotEligibleReasons []string `json:"not_eligible_reasons"`
}

// IoPerf is the result of the installation-disk-speed-check step.
type IoPerf struct {
	SyncDuration int64 `json:"sync_duration,omitempty"`
}

// Iscsi describes the initiator side of an iSCSI disk.
type Iscsi struct {
	HostIPAddress string `json:"host_ip_address,omitempty"`
}

// DriveType is the kind of a disk.
type DriveType string

// Drive types.
const (
	DriveTypeUnknown   DriveType = "Unknown"
	DriveTypeHDD       DriveType = "HDD"
	DriveTypeFDD       DriveType = "FDD"
	DriveTypeODD       DriveType = "ODD"
	DriveTypeSSD       DriveType = "SSD"
	DriveTypeVirtual   DriveType = "virtual"
	DriveTypeMultipath DriveType = "Multipath"
	DriveTypeISCSI     DriveType = "iSCSI"
	DriveTypeFC        DriveType = "FC"
	DriveTypeLVM       DriveType = "LVM"
	DriveTypeRAID      DriveType = "RAID"
	DriveTypeECKD      DriveType = "ECKD"
	DriveTypeECKDESE   DriveType = "ECKD (ESE)"
	DriveTypeFBA       DriveType = "FBA"
)

// Gpu is one display or accelerator PCI device.
type Gpu struct {
	Address  string `json:"address,omitempty"`
	DeviceID string `json:"device_id,omitempty"`
	Name     string `json:"name,omitempty"`
	Vendor   string `json:"vendor,omitempty"`
	VendorID string `json:"vendor_id,omitempty"`
}

// Interface is one network interface. Addresses are "ip/prefixlen";
// link-local addresses are left out.
type Interface struct {
	Biosdevname   string   `json:"biosdevname,omitempty"`
	ClientID      string   `json:"client_id,omitempty"`
	Flags         []string `json:"flags"`
	HasCarrier    bool     `json:"has_carrier,omitempty"`
	IPV4Addresses []string `json:"ipv4_addresses"`
	IPV6Addresses []string `json:"ipv6_addresses"`
	MacAddress    string   `json:"mac_address,omitempty"`
	Mtu           int64    `json:"mtu,omitempty"`
	Name          string   `json:"name,omitempty"`
	Product       string   `json:"product,omitempty"`
	SpeedMbps     int64    `json:"speed_mbps,omitempty"`
	Type          string   `json:"type,omitempty"`
	Vendor        string   `json:"vendor,omitempty"`
}

// Memory is the host's RAM in bytes. PhysicalBytesMethod says where
// PhysicalBytes came from.
type Memory struct {
	PhysicalBytes       int64        `json:"physical_bytes,omitempty"`
	PhysicalBytesMethod MemoryMethod `json:"physical_bytes_method,omitempty"`
	UsableBytes         int64        `json:"usable_bytes,omitempty"`
}

// MemoryMethod names the source of Memory.PhysicalBytes.
type MemoryMethod string

// Memory methods: SMBIOS memory devices (what dmidecode reads), memory
// block counts in sysfs (what ghw reads), or /proc/meminfo MemTotal.
const (
	MemoryMethodDmidecode MemoryMethod = "dmidecode"
	MemoryMethodGhw       MemoryMethod = "ghw"
	MemoryMethodMeminfo   MemoryMethod = "meminfo"
)

// Route is one route of the main routing table. Destination is the network
// address without its prefix length; Family is AF_INET (2) or AF_INET6 (10).
type Route struct {
	Destination string `json:"destination,omitempty"`
	Family      int32  `json:"family,omitempty"`
	Gateway     string `json:"gateway,omitempty"`
	Interface   string `json:"interface,omitempty"`
	Metric      int32  `json:"metric,omitempty"`
}

// Address families used in Route.Family (Linux values).
const (
	FamilyIPv4 int32 = 2
	FamilyIPv6 int32 = 10
)

// SystemVendor identifies the machine (DMI system information).
type SystemVendor struct {
	Manufacturer string `json:"manufacturer,omitempty"`
	ProductName  string `json:"product_name,omitempty"`
	SerialNumber string `json:"serial_number,omitempty"`
	Virtual      bool   `json:"virtual,omitempty"`
}
