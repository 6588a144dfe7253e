package engine

import (
	"maps"
	"net"
	"reflect"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/bmc"
)

// CreateBareMetalHost stores a new BareMetalHost. Its status starts as
// registering; whatever status the command carries is ignored.
type CreateBareMetalHost struct {
	Stamp
	Host BareMetalHost `json:"host"`
}

// Type implements Command.
func (*CreateBareMetalHost) Type() Type { return TypeCreateBareMetalHost }

func (c *CreateBareMetalHost) apply(tx *Tx) (any, error) {
	b := c.Host
	if err := checkBMH(b); err != nil {
		return nil, err
	}
	if _, ok := tx.m.bmhs[b.Name]; ok {
		return nil, conflict("baremetal host %s exists", b.Name)
	}
	b.Meta = Meta{}
	b.Labels, b.Annotations = maps.Clone(b.Labels), maps.Clone(b.Annotations)
	b.Status = BMHStatus{ProvisioningState: BMHRegistering}
	put(tx, tx.m.bmhs, KindBareMetalHost, b.Name, &b)
	return b, nil
}

// BMHPatch lists the spec fields of a BMH to change; nil leaves a field
// as it is. Labels and Annotations are merged as a JSON merge patch: a
// null value removes the key. RetryNow clears the failure count and the
// retry time (the controller tries at once), as any change of the BMC
// fields does.
type BMHPatch struct {
	Labels                         map[string]*string `json:"labels,omitempty"`
	Annotations                    map[string]*string `json:"annotations,omitempty"`
	Address                        *string            `json:"address,omitempty"`
	CredentialsName                *string            `json:"credentials_name,omitempty"`
	DisableCertificateVerification *bool              `json:"disable_certificate_verification,omitempty"`
	BootMACAddress                 *string            `json:"boot_mac_address,omitempty"`
	Online                         *bool              `json:"online,omitempty"`
	RootDeviceHints                *RootDeviceHints   `json:"root_device_hints,omitempty"`
	AutomatedCleaningMode          *string            `json:"automated_cleaning_mode,omitempty"`
	BootMode                       *string            `json:"boot_mode,omitempty"`
	PreprovisioningNetworkDataName *string            `json:"preprovisioning_network_data_name,omitempty"`
	RetryNow                       bool               `json:"retry_now,omitempty"`
}

// UpdateBareMetalHost changes the spec of a BMH.
type UpdateBareMetalHost struct {
	Stamp
	Name  string   `json:"name"`
	Patch BMHPatch `json:"patch"`
}

// Type implements Command.
func (*UpdateBareMetalHost) Type() Type { return TypeUpdateBareMetalHost }

func (c *UpdateBareMetalHost) apply(tx *Tx) (any, error) {
	old, ok := tx.m.bmhs[c.Name]
	if !ok {
		return nil, notFound(KindBareMetalHost, c.Name)
	}
	p, b := c.Patch, *old
	b.Labels, b.Annotations = mergeMap(b.Labels, p.Labels), mergeMap(b.Annotations, p.Annotations)
	bmcChanged := p.Address != nil || p.CredentialsName != nil || p.DisableCertificateVerification != nil
	set(&b.BMC.Address, p.Address)
	set(&b.BMC.CredentialsName, p.CredentialsName)
	set(&b.BMC.DisableCertificateVerification, p.DisableCertificateVerification)
	set(&b.BootMACAddress, p.BootMACAddress)
	set(&b.Online, p.Online)
	if p.RootDeviceHints != nil {
		h := *p.RootDeviceHints
		b.RootDeviceHints = &h
		if h == (RootDeviceHints{}) {
			b.RootDeviceHints = nil
		}
	}
	set(&b.AutomatedCleaningMode, p.AutomatedCleaningMode)
	set(&b.BootMode, p.BootMode)
	set(&b.PreprovisioningNetworkDataName, p.PreprovisioningNetworkDataName)
	if err := checkBMH(b); err != nil {
		return nil, err
	}
	// A permanent error (unsupported, bad credentials given up on) stops
	// the retries until the BMH changes.
	permanent := old.Status.ErrorType == "unsupported" || old.Status.ErrorType == "bad-credentials"
	if bmcChanged || p.RetryNow || (permanent && !reflect.DeepEqual(*old, b)) {
		b.Status.ErrorCount, b.Status.NextRetryAt = 0, tx.at
	}
	put(tx, tx.m.bmhs, KindBareMetalHost, b.Name, &b)
	return b, nil
}

// mergeMap applies a JSON merge patch of string values to m, returning a
// new map (nil when empty).
func mergeMap(m map[string]string, p map[string]*string) map[string]string {
	if len(p) == 0 {
		return m
	}
	out := maps.Clone(m)
	if out == nil {
		out = map[string]string{}
	}
	for k, v := range p {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = *v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// DeleteBareMetalHost removes a BMH; its paired host, if any, forgets it.
type DeleteBareMetalHost struct {
	Stamp
	Name string `json:"name"`
}

// Type implements Command.
func (*DeleteBareMetalHost) Type() Type { return TypeDeleteBareMetalHost }

func (c *DeleteBareMetalHost) apply(tx *Tx) (any, error) {
	b, ok := tx.m.bmhs[c.Name]
	if !ok {
		return nil, notFound(KindBareMetalHost, c.Name)
	}
	if h, ok := tx.m.hosts[b.Status.HostID]; ok && h.BMHName == c.Name {
		nh := *h
		nh.BMHName = ""
		tx.putHost(&nh)
	}
	for _, name := range slices.Sorted(maps.Keys(tx.m.nmstate)) { // in order: every replica the same
		if tx.m.nmstate[name].Labels[LabelNetworkDataBMH] == c.Name {
			del(tx, tx.m.nmstate, KindNMStateConfig, name) // its preprovisioning network
		}
	}
	del(tx, tx.m.bmhs, KindBareMetalHost, c.Name)
	return nil, nil
}

// SetBareMetalHostStatus replaces a BMH's status, except HostID (which
// only PairBareMetalHost sets). When Revision is not zero the BMH must
// still be at that revision (else ErrConflict): the controller acted on
// what it read.
type SetBareMetalHostStatus struct {
	Stamp
	Name     string    `json:"name"`
	Revision uint64    `json:"revision,omitempty"`
	Status   BMHStatus `json:"status"`
}

// Type implements Command.
func (*SetBareMetalHostStatus) Type() Type { return TypeSetBareMetalHostStatus }

func (c *SetBareMetalHostStatus) apply(tx *Tx) (any, error) {
	old, ok := tx.m.bmhs[c.Name]
	if !ok {
		return nil, notFound(KindBareMetalHost, c.Name)
	}
	if c.Revision != 0 && old.Revision != c.Revision {
		return nil, conflict("baremetal host %s changed (revision %d, not %d)", c.Name, old.Revision, c.Revision)
	}
	b := *old
	hostID := b.Status.HostID
	b.Status = c.Status
	b.Status.HostID = hostID
	put(tx, tx.m.bmhs, KindBareMetalHost, b.Name, &b)
	return b, nil
}

// HostFromBMH is what pairing copies from a BMH to its host; nil and empty
// fields leave the host's as they are. Labels are merged.
type HostFromBMH struct {
	Role                    *string           `json:"role,omitempty"`
	RequestedHostname       *string           `json:"requested_hostname,omitempty"`
	Approved                *bool             `json:"approved,omitempty"`
	InstallationDiskID      *string           `json:"installation_disk_id,omitempty"`
	InstallerArgs           *string           `json:"installer_args,omitempty"`
	IgnitionConfigOverrides *string           `json:"ignition_config_overrides,omitempty"`
	MachineConfigPool       *string           `json:"machine_config_pool_name,omitempty"`
	Labels                  map[string]string `json:"labels,omitempty"`
}

// PairBareMetalHost pairs a registered host with a BMH: the host gets
// BMHName and the fields copied from the BMH, the BMH's status the host's
// id and the provisioned state. A host paired with another BMH is a
// conflict; a host that paired before under another id forgets the BMH.
type PairBareMetalHost struct {
	Stamp
	Name   string      `json:"name"`
	HostID string      `json:"host_id"`
	Host   HostFromBMH `json:"host"`
}

// Type implements Command.
func (*PairBareMetalHost) Type() Type { return TypePairBareMetalHost }

func (c *PairBareMetalHost) apply(tx *Tx) (any, error) {
	old, ok := tx.m.bmhs[c.Name]
	if !ok {
		return nil, notFound(KindBareMetalHost, c.Name)
	}
	h, ok := tx.m.hosts[c.HostID]
	if !ok {
		return nil, notFound(KindHost, c.HostID)
	}
	if h.BMHName != "" && h.BMHName != c.Name {
		return nil, conflict("host %s is paired with baremetal host %s", c.HostID, h.BMHName)
	}
	if prev, ok := tx.m.hosts[old.Status.HostID]; ok && prev.ID != c.HostID && prev.BMHName == c.Name {
		p := *prev
		p.BMHName = ""
		tx.putHost(&p)
	}
	nh := *h
	nh.BMHName = c.Name
	c.Host.applyTo(&nh)
	tx.putHost(&nh)
	b := *old
	b.Status.HostID = c.HostID
	b.Status.ProvisioningState = BMHProvisioned
	put(tx, tx.m.bmhs, KindBareMetalHost, b.Name, &b)
	return nh, nil
}

func (f HostFromBMH) applyTo(h *Host) {
	set(&h.Role, f.Role)
	set(&h.RequestedHostname, f.RequestedHostname)
	set(&h.Approved, f.Approved)
	set(&h.InstallationDiskID, f.InstallationDiskID)
	set(&h.InstallerArgs, f.InstallerArgs)
	set(&h.IgnitionOverride, f.IgnitionConfigOverrides)
	set(&h.MachineConfigPool, f.MachineConfigPool)
	if len(f.Labels) > 0 {
		l := maps.Clone(h.Labels)
		if l == nil {
			l = map[string]string{}
		}
		maps.Copy(l, f.Labels)
		h.Labels = l
	}
}

// Automated cleaning modes (metal3).
const (
	CleaningMetadata = "metadata"
	CleaningDisabled = "disabled"

	// BareMetalHost boot modes (spec.bootMode, metal3's values).
	BootModeUEFI           = "UEFI"
	BootModeUEFISecureBoot = "UEFISecureBoot"
	BootModeLegacy         = "legacy"
)

// checkBMH checks a BMH's spec.
func checkBMH(b BareMetalHost) error {
	if !dnsSubdomain(b.Name) {
		return invalid("baremetal host name %q is not a DNS subdomain (lower case letters, digits, '-' and '.', at most 253)", b.Name)
	}
	if b.BMC.Address != "" {
		if _, err := bmc.ParseAddress(b.BMC.Address); err != nil {
			return invalid("baremetal host %s: %v", b.Name, err)
		}
		if b.BMC.CredentialsName == "" {
			return invalid("baremetal host %s: a BMC address needs credentials", b.Name)
		}
	}
	if b.BootMACAddress != "" {
		if hw, err := net.ParseMAC(b.BootMACAddress); err != nil || len(hw) != 6 {
			return invalid("baremetal host %s: bootMACAddress %q is not a MAC address", b.Name, b.BootMACAddress)
		}
	}
	switch b.AutomatedCleaningMode {
	case "", CleaningMetadata, CleaningDisabled:
	default:
		return invalid("baremetal host %s: automatedCleaningMode %q is not %s or %s", b.Name, b.AutomatedCleaningMode, CleaningMetadata, CleaningDisabled)
	}
	switch b.BootMode {
	case "", BootModeUEFI, BootModeUEFISecureBoot, BootModeLegacy:
	default:
		return invalid("baremetal host %s: bootMode %q is not %s, %s or %s", b.Name, b.BootMode, BootModeUEFI, BootModeUEFISecureBoot, BootModeLegacy)
	}
	if h := b.RootDeviceHints; h != nil && h.MinSizeGigabytes < 0 {
		return invalid("baremetal host %s: rootDeviceHints.minSizeGigabytes is negative", b.Name)
	}
	return nil
}

// dnsSubdomain checks a Kubernetes object name (RFC 1123 subdomain).
func dnsSubdomain(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}
