package models

// BareMetalHost is rackboot's REST form of a metal3 BareMetalHost
// (metal3.io/v1alpha1): the same metadata and spec field names, so the
// YAML operators write for metal3 maps onto it. It is a rackboot
// extension of the API (GET/POST /v2/baremetal-hosts,
// GET/PATCH/DELETE /v2/baremetal-hosts/{name}).
type BareMetalHost struct {
	APIVersion string               `json:"apiVersion,omitempty"`
	Kind       string               `json:"kind,omitempty"`
	Metadata   ObjectMeta           `json:"metadata"`
	Spec       BareMetalHostSpec    `json:"spec"`
	Status     *BareMetalHostStatus `json:"status,omitempty"`
}

// BareMetalHostCreate is the body of POST /v2/baremetal-hosts: a
// BareMetalHost and, optionally, the credentials for the Secret its
// spec.bmc.credentialsName names (stored sealed; never returned).
type BareMetalHostCreate struct {
	BareMetalHost
	Credentials *BMCCredentials `json:"credentials,omitempty"`
	// PreprovisioningNetworkData is the NMState YAML of the Secret
	// spec.preprovisioningNetworkDataName names, stored under that name.
	PreprovisioningNetworkData *string `json:"preprovisioningNetworkData,omitempty"`
}

// BareMetalHostPatch is the body of PATCH /v2/baremetal-hosts/{name}: a
// JSON merge patch of metadata labels and annotations (null removes a
// key) and of spec fields; credentials replace the secret's. Retry
// clears the failure backoff.
type BareMetalHostPatch struct {
	Metadata    *PatchMeta          `json:"metadata,omitempty"`
	Spec        *BareMetalHostSpecP `json:"spec,omitempty"`
	Credentials *BMCCredentials     `json:"credentials,omitempty"`
	Retry       bool                `json:"retry,omitempty"`
}

// PatchMeta is the metadata part of a BareMetalHostPatch.
type PatchMeta struct {
	Labels      map[string]*string `json:"labels,omitempty"`
	Annotations map[string]*string `json:"annotations,omitempty"`
}

// BareMetalHostSpecP is the spec part of a BareMetalHostPatch; nil fields
// stay as they are.
type BareMetalHostSpecP struct {
	BMC                   *BMCDetailsP     `json:"bmc,omitempty"`
	BootMACAddress        *string          `json:"bootMACAddress,omitempty"`
	Online                *bool            `json:"online,omitempty"`
	RootDeviceHints       *RootDeviceHints `json:"rootDeviceHints,omitempty"`
	AutomatedCleaningMode *string          `json:"automatedCleaningMode,omitempty"`
	BootMode              *string          `json:"bootMode,omitempty"`
	// PreprovisioningNetworkDataName names the Secret with the discovery
	// image's static network (key nmstate).
	PreprovisioningNetworkDataName *string `json:"preprovisioningNetworkDataName,omitempty"`
}

// BMCDetailsP is the bmc part of a BareMetalHostSpecP.
type BMCDetailsP struct {
	Address                        *string `json:"address,omitempty"`
	CredentialsName                *string `json:"credentialsName,omitempty"`
	DisableCertificateVerification *bool   `json:"disableCertificateVerification,omitempty"`
}

// BMCCredentials are a BMC's user name and password (write-only).
type BMCCredentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// String hides the password.
func (c BMCCredentials) String() string { return "BMCCredentials(" + c.Username + ", [redacted])" }

// GoString hides the password from %#v.
func (c BMCCredentials) GoString() string { return c.String() }

// ObjectMeta is the Kubernetes metadata rackboot keeps: the name (a DNS
// subdomain), labels and annotations. Namespace is accepted and ignored;
// CreationTimestamp and ResourceVersion are output only.
type ObjectMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
	CreationTimestamp DateTime          `json:"creationTimestamp,omitempty"`
	ResourceVersion   string            `json:"resourceVersion,omitempty"`
}

// BareMetalHostSpec is the part of metal3's spec rackboot acts on.
type BareMetalHostSpec struct {
	BMC                   BMCDetails       `json:"bmc"`
	BootMACAddress        string           `json:"bootMACAddress,omitempty"`
	Online                bool             `json:"online"`
	RootDeviceHints       *RootDeviceHints `json:"rootDeviceHints,omitempty"`
	AutomatedCleaningMode string           `json:"automatedCleaningMode,omitempty"`
	// BootMode is UEFI, UEFISecureBoot or legacy (metal3's values); empty
	// leaves the BMC's boot mode as it is.
	BootMode string `json:"bootMode,omitempty"`
	// PreprovisioningNetworkDataName names the Secret whose key nmstate is
	// the static network of the discovery image.
	PreprovisioningNetworkDataName string `json:"preprovisioningNetworkDataName,omitempty"`
}

// BMCDetails says how to reach the BMC.
type BMCDetails struct {
	Address                        string `json:"address"`
	CredentialsName                string `json:"credentialsName"`
	DisableCertificateVerification bool   `json:"disableCertificateVerification,omitempty"`
}

// RootDeviceHints select the installation disk (metal3's names).
type RootDeviceHints struct {
	DeviceName       string `json:"deviceName,omitempty"`
	HCTL             string `json:"hctl,omitempty"`
	Model            string `json:"model,omitempty"`
	Vendor           string `json:"vendor,omitempty"`
	SerialNumber     string `json:"serialNumber,omitempty"`
	MinSizeGigabytes int64  `json:"minSizeGigabytes,omitempty"`
	WWN              string `json:"wwn,omitempty"`
	Rotational       *bool  `json:"rotational,omitempty"`
}

// BareMetalHostStatus is what the controller saw and did (metal3's names
// where metal3 has the field).
type BareMetalHostStatus struct {
	OperationalStatus string                  `json:"operationalStatus,omitempty"`
	ErrorType         string                  `json:"errorType,omitempty"`
	ErrorMessage      string                  `json:"errorMessage,omitempty"`
	ErrorCount        int                     `json:"errorCount,omitempty"`
	PoweredOn         bool                    `json:"poweredOn"`
	PowerState        string                  `json:"powerState,omitempty"`
	Provisioning      BareMetalHostProvStatus `json:"provisioning"`
	LastOperation     string                  `json:"lastOperation,omitempty"`
	LastUpdated       DateTime                `json:"lastUpdated,omitempty"`
	NextRetryTime     DateTime                `json:"nextRetryTime,omitempty"`
	// HostID is the paired host (agent) id.
	HostID string `json:"hostID,omitempty"`
	// Hardware is the paired agent's inventory, as metal3 reports it.
	Hardware *HardwareDetails `json:"hardware,omitempty"`
}

// BareMetalHostProvStatus is the provisioning part of the status.
type BareMetalHostProvStatus struct {
	State string `json:"state"`
}

// BareMetalHostList is the body of GET /v2/baremetal-hosts.
type BareMetalHostList []*BareMetalHost

// HardwareDetails is a BMH's status.hardware (metal3's names), filled from
// the paired agent's inventory.
type HardwareDetails struct {
	SystemVendor HardwareSystemVendor `json:"systemVendor"`
	RAMMebibytes int64                `json:"ramMebibytes"`
	NIC          []HardwareNIC        `json:"nics"`
	Storage      []HardwareStorage    `json:"storage"`
	CPU          HardwareCPU          `json:"cpu"`
	Hostname     string               `json:"hostname,omitempty"`
}

// HardwareSystemVendor names the machine.
type HardwareSystemVendor struct {
	Manufacturer string `json:"manufacturer,omitempty"`
	ProductName  string `json:"productName,omitempty"`
	SerialNumber string `json:"serialNumber,omitempty"`
}

// HardwareNIC is one network interface.
type HardwareNIC struct {
	Name      string `json:"name"`
	Model     string `json:"model,omitempty"`
	MAC       string `json:"mac"`
	IP        string `json:"ip,omitempty"`
	SpeedGbps int64  `json:"speedGbps,omitempty"`
}

// HardwareStorage is one disk.
type HardwareStorage struct {
	Name         string `json:"name"`
	Type         string `json:"type,omitempty"`
	Rotational   bool   `json:"rotational"`
	SizeBytes    int64  `json:"sizeBytes"`
	Vendor       string `json:"vendor,omitempty"`
	Model        string `json:"model,omitempty"`
	SerialNumber string `json:"serialNumber,omitempty"`
	WWN          string `json:"wwn,omitempty"`
	HCTL         string `json:"hctl,omitempty"`
}

// HardwareCPU summarises the processors.
type HardwareCPU struct {
	Arch           string   `json:"arch,omitempty"`
	Model          string   `json:"model,omitempty"`
	ClockMegahertz float64  `json:"clockMegahertz,omitempty"`
	Flags          []string `json:"flags,omitempty"`
	Count          int64    `json:"count,omitempty"`
}
