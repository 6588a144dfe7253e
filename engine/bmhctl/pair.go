package bmhctl

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rackboot/rackboot/boot/installerargs"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/ipxe"
)

// Roles a role annotation may name (upstream's host roles).
var roles = []string{"master", "worker", "auto-assign"}

// gib is metal3's gigabyte for minSizeGigabytes (ironic counts GiB).
const gib = 1 << 30

// MatchHost returns the host of infra-env ieID whose inventory lists mac
// (case-insensitive) and its inventory; the one changed last when several
// do (a machine that registered again under a new id).
func MatchHost(m *engine.Model, ieID, mac string) (engine.Host, *models.Inventory, bool) {
	var (
		best    engine.Host
		bestInv *models.Inventory
	)
	for h := range m.HostsOfInfraEnv(ieID) {
		inv, ok := hostInventory(h)
		if !ok || !hasMAC(inv, mac) {
			continue
		}
		if bestInv == nil || h.Revision > best.Revision {
			best, bestInv = h, inv
		}
	}
	return best, bestInv, bestInv != nil
}

func hostInventory(h engine.Host) (*models.Inventory, bool) {
	if len(h.Inventory) == 0 {
		return nil, false
	}
	inv := new(models.Inventory)
	if err := json.Unmarshal(h.Inventory, inv); err != nil {
		return nil, false
	}
	return inv, true
}

func hasMAC(inv *models.Inventory, mac string) bool {
	for _, nic := range inv.Interfaces {
		if nic != nil && nic.MacAddress != "" && strings.EqualFold(nic.MacAddress, mac) {
			return true
		}
	}
	return false
}

// HostFields is what pairing copies from BMH b to a host with inventory
// inv: role, hostname, installer args, Ignition overrides, machine config
// pool and agent labels from the annotations, approval, and the
// installation disk that the root device hints select. A bad annotation or
// hints that match no disk is an error wrapping ErrConfig.
func HostFields(b engine.BareMetalHost, inv *models.Inventory) (engine.HostFromBMH, error) {
	f, err := annotationFields(b.Annotations)
	if err != nil {
		return f, err
	}
	if h := b.RootDeviceHints; h != nil {
		disk, ok := SelectDisk(*h, inv.Disks)
		if !ok {
			return f, fmt.Errorf("%w: no disk of the host matches rootDeviceHints %s", ErrConfig, describeHints(*h))
		}
		f.InstallationDiskID = &disk
	}
	return f, nil
}

// CheckAnnotations checks the BMAC annotations of a BMH as pairing will
// read them (the API refuses a BMH that could never pair).
func CheckAnnotations(a map[string]string) error {
	_, err := annotationFields(a)
	return err
}

// annotationFields reads the BMAC annotations; the host is approved.
func annotationFields(a map[string]string) (engine.HostFromBMH, error) {
	approved := true
	f := engine.HostFromBMH{Approved: &approved}
	if v, ok := a[engine.AnnotationRole]; ok {
		if !contains(roles, v) {
			return f, fmt.Errorf("%w: annotation %s %q is not one of %s", ErrConfig, engine.AnnotationRole, v, strings.Join(roles, ", "))
		}
		f.Role = &v
	}
	if v, ok := a[engine.AnnotationHostname]; ok {
		if err := checkHostname(v); err != nil {
			return f, fmt.Errorf("%w: annotation %s: %v", ErrConfig, engine.AnnotationHostname, err)
		}
		f.RequestedHostname = &v
	}
	if v, ok := a[engine.AnnotationInstallerArgs]; ok {
		var args []string
		if err := json.Unmarshal([]byte(v), &args); err != nil {
			return f, fmt.Errorf("%w: annotation %s is not a JSON array of strings", ErrConfig, engine.AnnotationInstallerArgs)
		}
		if err := installerargs.Check(args); err != nil {
			return f, fmt.Errorf("%w: annotation %s: %v", ErrConfig, engine.AnnotationInstallerArgs, err)
		}
		f.InstallerArgs = &v
	}
	if v, ok := a[engine.AnnotationIgnitionOverrides]; ok {
		var doc map[string]any
		if err := json.Unmarshal([]byte(v), &doc); err != nil {
			return f, fmt.Errorf("%w: annotation %s is not a JSON object", ErrConfig, engine.AnnotationIgnitionOverrides)
		}
		f.IgnitionConfigOverrides = &v
	}
	if v, ok := a[engine.AnnotationMachineConfigPool]; ok {
		f.MachineConfigPool = &v
	}
	for k, v := range a {
		if key, ok := strings.CutPrefix(k, engine.AnnotationAgentLabelPrefix); ok && key != "" {
			if f.Labels == nil {
				f.Labels = map[string]string{}
			}
			f.Labels[key] = v
		}
	}
	return f, nil
}

// checkHostname accepts an RFC 1123 host name that is also safe in an iPXE
// script and a kernel command line.
func checkHostname(h string) error {
	if h == "" || len(h) > 253 {
		return fmt.Errorf("hostname %q is empty or longer than 253 characters", h)
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("hostname %q is not an RFC 1123 name", h)
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return fmt.Errorf("hostname %q is not an RFC 1123 name", h)
			}
		}
	}
	return ipxe.CheckHostname(h)
}

// SelectDisk returns the id of the first disk (not the installation
// medium) that matches every set hint, as metal3 reads them: deviceName
// (the /dev path, a by-path or by-id link, or the bare name), hctl,
// serialNumber and wwn exactly; model and vendor as substrings;
// minSizeGigabytes as GiB; rotational against the drive type.
func SelectDisk(h engine.RootDeviceHints, disks []*models.Disk) (string, bool) {
	for _, d := range disks {
		if d == nil || d.IsInstallationMedia || !diskMatches(h, d) {
			continue
		}
		if d.ID != "" {
			return d.ID, true
		}
		return d.Path, d.Path != ""
	}
	return "", false
}

func diskMatches(h engine.RootDeviceHints, d *models.Disk) bool {
	switch {
	case h.DeviceName != "" && !deviceNameMatches(h.DeviceName, d):
		return false
	case h.HCTL != "" && h.HCTL != d.Hctl:
		return false
	case h.Model != "" && !strings.Contains(d.Model, h.Model):
		return false
	case h.Vendor != "" && !strings.Contains(d.Vendor, h.Vendor):
		return false
	case h.SerialNumber != "" && h.SerialNumber != d.Serial:
		return false
	case h.WWN != "" && h.WWN != d.Wwn:
		return false
	case h.MinSizeGigabytes > 0 && d.SizeBytes < h.MinSizeGigabytes*gib:
		return false
	case h.Rotational != nil && *h.Rotational != (d.DriveType == models.DriveTypeHDD):
		return false
	}
	return true
}

func deviceNameMatches(name string, d *models.Disk) bool {
	if name == d.Path || name == d.ByPath || name == d.ByID {
		return true
	}
	return d.Name != "" && (name == d.Name || name == "/dev/"+d.Name)
}

func describeHints(h engine.RootDeviceHints) string {
	b, _ := json.Marshal(h)
	return string(b)
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
