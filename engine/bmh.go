package engine

import (
	"iter"
	"net"
	"strings"
	"time"
)

// KindBareMetalHost is the kind of BareMetalHost objects and their changes.
const KindBareMetalHost Kind = "baremetal-host"

// Label and annotation keys of upstream's Baremetal Agent Controller
// (BMAC) and metal3 that rackboot honours on a BareMetalHost.
const (
	// LabelInfraEnv names the infra-env (by name or id) a BMH boots.
	LabelInfraEnv = "infraenvs.agent-install.openshift.io"
	// AnnotationPrefix heads the annotations copied to the paired host.
	AnnotationPrefix            = "bmac.agent-install.openshift.io/"
	AnnotationRole              = AnnotationPrefix + "role"
	AnnotationHostname          = AnnotationPrefix + "hostname"
	AnnotationInstallerArgs     = AnnotationPrefix + "installer-args"
	AnnotationIgnitionOverrides = AnnotationPrefix + "ignition-config-overrides"
	AnnotationMachineConfigPool = AnnotationPrefix + "machine-config-pool"
	// AnnotationAgentLabelPrefix heads annotations copied as host labels
	// (the rest of the key is the label's key).
	AnnotationAgentLabelPrefix = "bmac.agent-install.openshift.io.agent-label."
	// AnnotationDetached marks a BMH the controller no longer drives.
	AnnotationDetached = "baremetalhost.metal3.io/detached"
)

// BMC credentials secret: the Secret named by BMC.CredentialsName holds
// these keys, sealed (see Sealer).
const (
	BMCSecretType     = "bmc-credentials"
	BMCSecretUsername = "username"
	BMCSecretPassword = "password"
)

// Network data secret: the Secret a BMH's PreprovisioningNetworkDataName
// names holds the discovery image's NMState YAML under this key (as
// OpenShift's image customization reads it).
const (
	NetworkDataSecretType = "nmstate"
	NetworkDataKey        = "nmstate"
	// LabelNetworkDataBMH marks the NMState config the BMH controller made
	// from a BMH's network data secret; its value is the BMH's name (the
	// config goes with the BMH).
	LabelNetworkDataBMH = "rackboot.io/preprovisioning-network-bmh"
)

// Provisioning states of a BareMetalHost (metal3's names where they
// exist).
const (
	// BMHRegistering: the controller has not yet talked to the BMC.
	BMHRegistering = "registering"
	// BMHAvailable: the BMC answers; nothing to boot (no infra-env label,
	// or offline).
	BMHAvailable = "available"
	// BMHProvisioning: the discovery image is set up and the machine was
	// powered on; waiting for its agent to register.
	BMHProvisioning = "provisioning"
	// BMHProvisioned: the agent registered and is paired with the BMH.
	BMHProvisioned = "provisioned"
	// BMHDetached: the image was written and the machine rebooted into its
	// disk; the controller leaves it alone.
	BMHDetached = "detached"
)

// Operational statuses of a BareMetalHost.
const (
	BMHStatusOK       = "OK"
	BMHStatusError    = "error"
	BMHStatusDetached = "detached"
)

// BMC is how the controller reaches a machine's BMC.
type BMC struct {
	// Address is a metal3 BMC address (bmc.ParseAddress).
	Address string `json:"address"`
	// CredentialsName names the Secret with the BMC's user and password.
	CredentialsName string `json:"credentials_name"`
	// DisableCertificateVerification turns TLS verification off for this
	// BMC (most ship self-signed certificates).
	DisableCertificateVerification bool `json:"disable_certificate_verification,omitempty"`
}

// RootDeviceHints select the installation disk, as metal3's; every set
// hint must match.
type RootDeviceHints struct {
	DeviceName       string `json:"device_name,omitempty"`
	HCTL             string `json:"hctl,omitempty"`
	Model            string `json:"model,omitempty"`
	Vendor           string `json:"vendor,omitempty"`
	SerialNumber     string `json:"serial_number,omitempty"`
	MinSizeGigabytes int64  `json:"min_size_gigabytes,omitempty"`
	WWN              string `json:"wwn,omitempty"`
	Rotational       *bool  `json:"rotational,omitempty"`
}

// BMHStatus is what the controller last saw and did.
type BMHStatus struct {
	PowerState        string `json:"power_state,omitempty"`
	ProvisioningState string `json:"provisioning_state,omitempty"`
	OperationalStatus string `json:"operational_status,omitempty"`
	// LastOperation names the last BMC action and its result.
	LastOperation   string    `json:"last_operation,omitempty"`
	LastOperationAt time.Time `json:"last_operation_at"`
	// ErrorType classifies ErrorMessage: bad-credentials, unreachable,
	// unsupported, bmc-error or config ("" when OK).
	ErrorType    string `json:"error_type,omitempty"`
	ErrorMessage string `json:"error_message,omitempty"`
	// ErrorCount is the number of failures in a row.
	ErrorCount int `json:"error_count,omitempty"`
	// NextRetryAt is when the controller tries again after a failure.
	NextRetryAt time.Time `json:"next_retry_at"`
	// HostID is the paired host (set by PairBareMetalHost only).
	HostID string `json:"host_id,omitempty"`
}

// BareMetalHost is a machine with a BMC, as metal3's BareMetalHost.
type BareMetalHost struct {
	Meta
	Name                  string            `json:"name"`
	Labels                map[string]string `json:"labels,omitempty"`
	Annotations           map[string]string `json:"annotations,omitempty"`
	BMC                   BMC               `json:"bmc"`
	BootMACAddress        string            `json:"boot_mac_address,omitempty"`
	Online                bool              `json:"online"`
	RootDeviceHints       *RootDeviceHints  `json:"root_device_hints,omitempty"`
	AutomatedCleaningMode string            `json:"automated_cleaning_mode,omitempty"`
	BootMode              string            `json:"boot_mode,omitempty"`
	// PreprovisioningNetworkDataName names the Secret whose "nmstate" key
	// is the static network of the discovery image (metal3's field).
	PreprovisioningNetworkDataName string    `json:"preprovisioning_network_data_name,omitempty"`
	Status                         BMHStatus `json:"status"`
}

// InfraEnvRef is the infra-env label's value ("" when unlabelled).
func (b BareMetalHost) InfraEnvRef() string { return b.Labels[LabelInfraEnv] }

// Detached reports whether the BMH carries the detached annotation.
func (b BareMetalHost) Detached() bool {
	_, ok := b.Annotations[AnnotationDetached]
	return ok
}

// BareMetalHost returns the BMH named name.
func (m *Model) BareMetalHost(name string) (BareMetalHost, bool) { return get(m.bmhs, name) }

// BareMetalHosts yields every BMH in name order.
func (m *Model) BareMetalHosts() iter.Seq[BareMetalHost] { return sorted(m.bmhs) }

// BareMetalHostByMAC returns the BMH whose boot MAC is mac
// (case-insensitive; the first by name when several claim it).
func (m *Model) BareMetalHostByMAC(mac string) (BareMetalHost, bool) {
	for b := range m.BareMetalHosts() {
		if b.BootMACAddress != "" && strings.EqualFold(b.BootMACAddress, mac) {
			return b, true
		}
	}
	return BareMetalHost{}, false
}

// InfraEnvByRef is the infra-env whose id, else whose name, is ref (the
// first by id when several share the name).
func (m *Model) InfraEnvByRef(ref string) (InfraEnv, bool) {
	if ie, ok := m.InfraEnv(ref); ok {
		return ie, true
	}
	for ie := range m.InfraEnvs() {
		if ie.Name == ref {
			return ie, true
		}
	}
	return InfraEnv{}, false
}

// BMHLabeler assigns a MAC to the infra-env named by the infra-env label of
// the BareMetalHost whose boot MAC it is: the boot selector's label seam
// (bootsel.Labeler), so a BMH booted with one-time PXE gets its image.
type BMHLabeler struct{}

// InfraEnvFor implements bootsel.Labeler.
func (BMHLabeler) InfraEnvFor(m *Model, mac net.HardwareAddr) (string, bool) {
	b, ok := m.BareMetalHostByMAC(mac.String())
	if !ok || b.InfraEnvRef() == "" {
		return "", false
	}
	return b.InfraEnvRef(), true
}
