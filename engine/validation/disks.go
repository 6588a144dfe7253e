package validation

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

// Reasons the service gives for a disk not being eligible. Reasons the
// agent gave (removable, LVM, installation media, mounted partitions) are
// kept; these are recomputed on every evaluation.
const (
	reasonTooSmall          = "Disk is too small (disk only has %s, but %s are required)"
	reasonWrongDriveType    = "Drive type is %s, it must be one of %s."
	reasonWrongMultipath    = "Multipath device has path of unsupported type. It must be %s"
	reasonMixedMultipath    = "Multipath device has paths of different types, but they must all be the same type"
	reasonMultipathMember   = "Disk is a member of multipath device %s and is not eligible for installation. Use the multipath device instead."
	reasonRemovable         = "Disk is removable"
	reasonInstallationMedia = "Disk appears to be an ISO installation media (has partition with type iso9660)"
)

// serviceReasons matches the reasons this package writes, so that a
// re-evaluation replaces them instead of piling them up.
var serviceReasons = regexp.MustCompile(`^(Disk is too small \(|Drive type is .*, it must be one of |Multipath device has path|Multipath device has paths of different|Disk is a member of multipath device )`)

// DiskEligibility says whether a disk can take the installation, given the
// host's inventory (for architecture and multipath members) and the
// minimum disk size in decimal GB. The agent's own reasons are kept.
func DiskEligibility(disk *models.Disk, inv *models.Inventory, minDiskGB int64) models.DiskInstallationEligibility {
	var reasons []string
	if disk == nil {
		return models.DiskInstallationEligibility{NotEligibleReasons: []string{}}
	}
	for _, r := range disk.InstallationEligibility.NotEligibleReasons {
		if !serviceReasons.MatchString(r) {
			reasons = append(reasons, r)
		}
	}
	if disk.Removable && !slices.Contains(reasons, reasonRemovable) {
		reasons = append(reasons, reasonRemovable)
	}
	if disk.IsInstallationMedia && !hasPrefixIn(reasons, "Disk appears to be an ISO installation media") && disk.DriveType != models.DriveTypeODD {
		reasons = append(reasons, reasonInstallationMedia)
	}
	reasons = append(reasons, sizeReasons(disk, minDiskGB)...)
	reasons = append(reasons, typeReasons(disk, inv)...)
	if reasons == nil {
		reasons = []string{}
	}
	return models.DiskInstallationEligibility{Eligible: len(reasons) == 0, NotEligibleReasons: reasons}
}

func hasPrefixIn(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

func sizeReasons(disk *models.Disk, minDiskGB int64) []string {
	minBytes := minDiskGB * 1e9
	if disk.SizeBytes >= minBytes {
		return nil
	}
	has, want := decimalBytes(disk.SizeBytes), decimalBytes(minBytes)
	if has == want {
		has = fmt.Sprintf("%s (short by %s)", has, decimalBytes(minBytes-disk.SizeBytes))
	}
	return []string{fmt.Sprintf(reasonTooSmall, has, want)}
}

// validDriveTypes are the drive types an installation may go to on an
// architecture (upstream's list for current OpenShift versions).
func validDriveTypes(arch string) []string {
	types := []string{string(models.DriveTypeHDD), string(models.DriveTypeSSD), string(models.DriveTypeMultipath),
		string(models.DriveTypeRAID), string(models.DriveTypeISCSI)}
	switch arch {
	case "s390x":
		types = append(types, string(models.DriveTypeFC), string(models.DriveTypeECKDESE),
			string(models.DriveTypeECKD), string(models.DriveTypeFBA))
	case "x86_64":
		types = append(types, string(models.DriveTypeFC))
	}
	return types
}

func typeReasons(disk *models.Disk, inv *models.Inventory) []string {
	arch := ""
	if inv != nil && inv.CPU != nil {
		arch = inv.CPU.Architecture
	}
	valid := validDriveTypes(arch)
	var reasons []string
	if !slices.Contains(valid, string(disk.DriveType)) {
		reasons = append(reasons, fmt.Sprintf(reasonWrongDriveType, disk.DriveType, strings.Join(valid, ", ")))
	}
	if inv == nil {
		return reasons
	}
	switch disk.DriveType {
	case models.DriveTypeFC, models.DriveTypeISCSI:
		if holder := multipathHolder(disk, inv); holder != "" {
			reasons = append(reasons, fmt.Sprintf(reasonMultipathMember, holder))
		}
	case models.DriveTypeMultipath:
		reasons = append(reasons, multipathReasons(disk, inv)...)
	}
	return reasons
}

// members returns the disks whose holders include the named device.
func members(inv *models.Inventory, holder string) []*models.Disk {
	var out []*models.Disk
	for _, d := range inv.Disks {
		if d != nil && slices.Contains(strings.Split(d.Holders, ","), holder) {
			out = append(out, d)
		}
	}
	return out
}

func multipathHolder(disk *models.Disk, inv *models.Inventory) string {
	for _, h := range strings.Split(disk.Holders, ",") {
		for _, d := range inv.Disks {
			if d != nil && h != "" && d.Name == h && d.DriveType == models.DriveTypeMultipath {
				return h
			}
		}
	}
	return ""
}

func multipathReasons(disk *models.Disk, inv *models.Inventory) []string {
	paths := members(inv, disk.Name)
	var fc, iscsi int
	for _, p := range paths {
		switch p.DriveType {
		case models.DriveTypeFC:
			fc++
		case models.DriveTypeISCSI:
			iscsi++
		}
	}
	if fc == 0 && iscsi == 0 {
		return []string{fmt.Sprintf(reasonWrongMultipath, "FC, iSCSI")}
	}
	if (fc > 0 && fc != len(paths)) || (iscsi > 0 && iscsi != len(paths)) {
		return []string{reasonMixedMultipath}
	}
	return nil
}

// EligibleDisks returns copies of the inventory's disks with their
// installation_eligibility recomputed, and the eligible ones in upstream's
// order of preference: bootable first, then non-NVMe, then by drive type
// name, then the smallest, then by HCTL.
func EligibleDisks(inv *models.Inventory, minDiskGB int64) (all, eligible []*models.Disk) {
	if inv == nil {
		return nil, nil
	}
	for _, d := range inv.Disks {
		if d == nil {
			continue
		}
		c := *d
		c.InstallationEligibility = DiskEligibility(d, inv, minDiskGB)
		all = append(all, &c)
		if c.InstallationEligibility.Eligible {
			eligible = append(eligible, &c)
		}
	}
	slices.SortStableFunc(eligible, compareDisks)
	return all, eligible
}

func compareDisks(a, b *models.Disk) int {
	if a.Bootable != b.Bootable {
		return boolFirst(a.Bootable)
	}
	na, nb := strings.HasPrefix(a.Name, "nvme"), strings.HasPrefix(b.Name, "nvme")
	if na != nb {
		return boolFirst(nb)
	}
	if c := strings.Compare(string(a.DriveType), string(b.DriveType)); c != 0 {
		return c
	}
	if a.SizeBytes != b.SizeBytes {
		if a.SizeBytes < b.SizeBytes {
			return -1
		}
		return 1
	}
	return strings.Compare(a.Hctl, b.Hctl)
}

func boolFirst(first bool) int {
	if first {
		return -1
	}
	return 1
}
