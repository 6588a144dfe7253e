package inventory

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"net/netip"
	"regexp"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

// hypervisors are DMI sys_vendor / product_name prefixes of virtual
// machines (the DMI half of what systemd-detect-virt --vm checks).
var hypervisors = []string{
	"QEMU", "KVM", "VMware", "Xen", "innotek GmbH", "VirtualBox", "Parallels",
	"Bochs", "BHYVE", "Amazon EC2", "Google", "OpenStack", "oVirt", "RHEV",
	"Nutanix", "Apple Virtualization", "Microsoft Corporation Virtual Machine",
}

// SystemVendor reads /sys/class/dmi/id (upstream uses ghw, which reads the
// same files). Virtual is set when the CPUID hypervisor flag is present or
// DMI names a known hypervisor. A host without DMI gets only Virtual.
func (c *Collector) SystemVendor() *models.SystemVendor {
	fsys, dir := c.fsys(), "sys/class/dmi/id/"
	v := &models.SystemVendor{
		Manufacturer: readOptional(fsys, dir+"sys_vendor"),
		ProductName:  readOptional(fsys, dir+"product_name"),
		SerialNumber: readOptional(fsys, dir+"product_serial"),
	}
	if fam := readOptional(fsys, dir+"product_family"); fam == "oVirt" || fam == "RHV" {
		v.ProductName = "oVirt"
	}
	if tag := readOptional(fsys, dir+"chassis_asset_tag"); tag == "OracleCloud.com" {
		v.Manufacturer = tag
	}
	if ci, err := c.cpuInfo(); err == nil && ci.Hypervisor {
		v.Virtual = true
	}
	full := v.Manufacturer + " " + v.ProductName
	for _, h := range hypervisors {
		if strings.HasPrefix(v.Manufacturer, h) || strings.HasPrefix(v.ProductName, h) || strings.HasPrefix(full, h) {
			v.Virtual = true
		}
	}
	return v
}

// secureBootVar is the SecureBoot EFI variable in efivarfs.
const secureBootVar = "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

// secretArg matches kernel arguments or URL parameters carrying tokens.
var secretArg = regexp.MustCompile(`(?i)((?:api_key|image_token|token|password|secret)=)[^&\s]+`)

// Boot reports UEFI when /sys/firmware/efi exists (else BIOS), the PXE
// MAC from BOOTIF= on /proc/cmdline, the command line with token values
// replaced by "REDACTED", and the SecureBoot EFI variable.
func (c *Collector) Boot() *models.Boot {
	fsys := c.fsys()
	b := &models.Boot{CurrentBootMode: models.BootModeBIOS, SecureBootState: models.SecureBootStateNotSupported}
	if st, err := fs.Stat(fsys, "sys/firmware/efi"); err == nil && st.IsDir() {
		b.CurrentBootMode = models.BootModeUEFI
	}
	cmdline := readOptional(fsys, "proc/cmdline")
	for _, arg := range strings.Fields(cmdline) {
		if mac, ok := strings.CutPrefix(arg, "BOOTIF="); ok {
			b.PxeInterface = mac
		}
	}
	b.CommandLine = secretArg.ReplaceAllString(cmdline, "${1}REDACTED")
	raw, err := fs.ReadFile(fsys, secureBootVar)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil || len(raw) != 5 || raw[4] > 1:
		b.SecureBootState = models.SecureBootStateUnknown
	case raw[4] == 1:
		b.SecureBootState = models.SecureBootStateEnabled
	default:
		b.SecureBootState = models.SecureBootStateDisabled
	}
	return b
}

// Hostname reads /proc/sys/kernel/hostname.
func (c *Collector) Hostname() (string, error) {
	return readString(c.fsys(), "proc/sys/kernel/hostname")
}

// TPMVersion reads /sys/class/tpm/tpm0/tpm_version_major: "2.0", "1.2",
// or "none" when the host has no TPM.
func (c *Collector) TPMVersion() (string, error) {
	v, err := readString(c.fsys(), "sys/class/tpm/tpm0/tpm_version_major")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return models.TpmVersionNone, nil
	case err != nil:
		return "", err
	case v == "1":
		return models.TpmVersion12, nil
	case v == "2":
		return models.TpmVersion20, nil
	}
	return v, nil
}

// gpuClasses are the PCI classes upstream reports as GPUs: VGA, 3D,
// display controller, processing accelerator.
var gpuClasses = []string{"0300", "0302", "0380", "1200"}

// GPUs lists PCI devices of a GPU class from /sys/bus/pci/devices with
// their address and vendor/device ids. Names are left empty: they need the
// PCI id database, which the discovery image does not carry.
func (c *Collector) GPUs() ([]*models.Gpu, error) {
	fsys := c.fsys()
	out := []*models.Gpu{}
	ents, err := fs.ReadDir(fsys, "sys/bus/pci/devices")
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		dir := "sys/bus/pci/devices/" + e.Name() + "/"
		class := strings.TrimPrefix(readOptional(fsys, dir+"class"), "0x")
		if len(class) < 4 || !contains(gpuClasses, class[:4]) {
			continue
		}
		out = append(out, &models.Gpu{
			Address:  e.Name(),
			VendorID: strings.TrimPrefix(readOptional(fsys, dir+"vendor"), "0x"),
			DeviceID: strings.TrimPrefix(readOptional(fsys, dir+"device"), "0x"),
		})
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// DNS is the resolver configuration (upstream's inventory has no DNS
// field; the domain-resolution step and validations use this).
type DNS struct {
	Nameservers []netip.Addr
	Search      []string
}

// ParseResolvConf reads nameserver and search/domain lines of a
// resolv.conf; anything else, and nameservers that are not IP addresses,
// are ignored as the libc resolver ignores them.
func ParseResolvConf(b []byte) DNS {
	var d DNS
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || strings.HasPrefix(f[0], "#") || strings.HasPrefix(f[0], ";") {
			continue
		}
		switch f[0] {
		case "nameserver":
			if a, err := netip.ParseAddr(f[1]); err == nil {
				d.Nameservers = append(d.Nameservers, a)
			}
		case "search", "domain":
			d.Search = append(d.Search[:0], f[1:]...)
		}
	}
	return d
}

// DNS reads /etc/resolv.conf.
func (c *Collector) DNS() (DNS, error) {
	b, err := fs.ReadFile(c.fsys(), "etc/resolv.conf")
	if err != nil {
		return DNS{}, err
	}
	return ParseResolvConf(b), nil
}
