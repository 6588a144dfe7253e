package bmhctl

import (
	"strings"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// Hardware is the status.hardware of a BMH paired with host h: the agent's
// inventory in metal3's names, or nil while h has none.
func Hardware(h engine.Host) *models.HardwareDetails {
	inv, ok := hostInventory(h)
	if !ok {
		return nil
	}
	hw := &models.HardwareDetails{Hostname: inv.Hostname, NIC: []models.HardwareNIC{}, Storage: []models.HardwareStorage{}}
	if v := inv.SystemVendor; v != nil {
		hw.SystemVendor = models.HardwareSystemVendor{Manufacturer: v.Manufacturer, ProductName: v.ProductName, SerialNumber: v.SerialNumber}
	}
	if m := inv.Memory; m != nil {
		hw.RAMMebibytes = m.PhysicalBytes >> 20
	}
	if c := inv.CPU; c != nil {
		hw.CPU = models.HardwareCPU{Arch: c.Architecture, Model: c.ModelName, ClockMegahertz: c.Frequency, Flags: c.Flags, Count: c.Count}
	}
	for _, n := range inv.Interfaces {
		if n == nil {
			continue
		}
		nic := models.HardwareNIC{Name: n.Name, Model: strings.TrimSpace(n.Vendor + " " + n.Product), MAC: n.MacAddress,
			SpeedGbps: n.SpeedMbps / 1000}
		if len(n.IPV4Addresses) > 0 {
			nic.IP, _, _ = strings.Cut(n.IPV4Addresses[0], "/")
		} else if len(n.IPV6Addresses) > 0 {
			nic.IP, _, _ = strings.Cut(n.IPV6Addresses[0], "/")
		}
		hw.NIC = append(hw.NIC, nic)
	}
	for _, d := range inv.Disks {
		if d == nil {
			continue
		}
		hw.Storage = append(hw.Storage, models.HardwareStorage{Name: d.Path, Type: string(d.DriveType),
			Rotational: d.DriveType == models.DriveTypeHDD, SizeBytes: d.SizeBytes, Vendor: d.Vendor, Model: d.Model,
			SerialNumber: d.Serial, WWN: d.Wwn, HCTL: d.Hctl})
	}
	return hw
}

// WipeDisks are the disks of host h whose partition tables the agent wipes
// before installing, when its BareMetalHost b asks for metadata cleaning
// (automatedCleaningMode: metadata, as Ironic's): every disk of the
// inventory but the installation disk, the installation media, removable
// and optical drives. Nil otherwise.
func WipeDisks(b engine.BareMetalHost, h engine.Host) []string {
	if b.AutomatedCleaningMode != engine.CleaningMetadata {
		return nil
	}
	inv, ok := hostInventory(h)
	if !ok {
		return nil
	}
	var out []string
	for _, d := range inv.Disks {
		if d == nil || d.Path == "" || d.ID == h.InstallationDiskID || d.IsInstallationMedia || d.Removable ||
			d.DriveType == models.DriveTypeODD {
			continue
		}
		out = append(out, d.Path)
	}
	return out
}
