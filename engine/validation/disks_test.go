package validation

import (
	"slices"
	"testing"

	"github.com/rackboot/rackboot/engine/models"
)

func TestDiskEligibility(t *testing.T) {
	inv := &models.Inventory{CPU: &models.CPU{Architecture: "x86_64"}}
	cases := []struct {
		name    string
		disk    models.Disk
		reasons []string
	}{
		{"ssd 200 GB", models.Disk{DriveType: models.DriveTypeSSD, SizeBytes: 200 * gb}, []string{}},
		{"hdd exactly 120 GB", models.Disk{DriveType: models.DriveTypeHDD, SizeBytes: 120 * gb}, []string{}},
		{"20 GiB virtio", models.Disk{DriveType: models.DriveTypeHDD, SizeBytes: 21474836480},
			[]string{"Disk is too small (disk only has 21.475 GB, but 120 GB are required)"}},
		{"one byte short", models.Disk{DriveType: models.DriveTypeHDD, SizeBytes: 120*gb - 1},
			[]string{"Disk is too small (disk only has 120 GB (short by 1 B), but 120 GB are required)"}},
		{"removable usb", models.Disk{DriveType: models.DriveTypeSSD, SizeBytes: 256 * gb, Removable: true}, []string{"Disk is removable"}},
		{"agent said removable", models.Disk{DriveType: models.DriveTypeSSD, SizeBytes: 256 * gb, Removable: true,
			InstallationEligibility: models.DiskInstallationEligibility{NotEligibleReasons: []string{"Disk is removable"}}}, []string{"Disk is removable"}},
		{"floppy", models.Disk{DriveType: models.DriveTypeFDD, SizeBytes: 1474560}, []string{
			"Disk is too small (disk only has 1.475 MB, but 120 GB are required)",
			"Drive type is FDD, it must be one of HDD, SSD, Multipath, RAID, iSCSI, FC."}},
		{"cdrom", models.Disk{DriveType: models.DriveTypeODD, SizeBytes: 1 * gb, IsInstallationMedia: true}, []string{
			"Disk is too small (disk only has 1 GB, but 120 GB are required)",
			"Drive type is ODD, it must be one of HDD, SSD, Multipath, RAID, iSCSI, FC."}},
		{"lvm", models.Disk{DriveType: models.DriveTypeLVM, SizeBytes: 500 * gb,
			InstallationEligibility: models.DiskInstallationEligibility{NotEligibleReasons: []string{"Disk is an LVM logical volume"}}},
			[]string{"Disk is an LVM logical volume", "Drive type is LVM, it must be one of HDD, SSD, Multipath, RAID, iSCSI, FC."}},
		{"stale service reason replaced", models.Disk{DriveType: models.DriveTypeSSD, SizeBytes: 200 * gb,
			InstallationEligibility: models.DiskInstallationEligibility{NotEligibleReasons: []string{
				"Disk is too small (disk only has 100 GB, but 120 GB are required)"}}}, []string{}},
		{"multipath over local paths", models.Disk{Name: "dm-0", DriveType: models.DriveTypeMultipath, SizeBytes: 200 * gb},
			[]string{"Multipath device has path of unsupported type. It must be FC, iSCSI"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := DiskEligibility(&tc.disk, inv, 120)
			if !slices.Equal(got.NotEligibleReasons, tc.reasons) || got.Eligible != (len(tc.reasons) == 0) {
				t.Errorf("eligibility = %v %q, want %q", got.Eligible, got.NotEligibleReasons, tc.reasons)
			}
		})
	}
}

func TestDiskEligibilityMultipath(t *testing.T) {
	inv := &models.Inventory{CPU: &models.CPU{Architecture: "x86_64"}, Disks: []*models.Disk{
		{Name: "dm-0", DriveType: models.DriveTypeMultipath, SizeBytes: 200 * gb},
		{Name: "sda", DriveType: models.DriveTypeFC, SizeBytes: 200 * gb, Holders: "dm-0"},
		{Name: "sdb", DriveType: models.DriveTypeFC, SizeBytes: 200 * gb, Holders: "dm-0"},
	}}
	if e := DiskEligibility(inv.Disks[0], inv, 120); !e.Eligible {
		t.Errorf("FC multipath device not eligible: %q", e.NotEligibleReasons)
	}
	want := []string{"Disk is a member of multipath device dm-0 and is not eligible for installation. Use the multipath device instead."}
	if e := DiskEligibility(inv.Disks[1], inv, 120); !slices.Equal(e.NotEligibleReasons, want) {
		t.Errorf("multipath member: %q", e.NotEligibleReasons)
	}
}

func TestEligibleDisksOrder(t *testing.T) {
	inv := &models.Inventory{CPU: &models.CPU{Architecture: "x86_64"}, Disks: []*models.Disk{
		{Name: "nvme0n1", DriveType: models.DriveTypeSSD, SizeBytes: 500 * gb, Bootable: true},
		{Name: "sdb", DriveType: models.DriveTypeSSD, SizeBytes: 300 * gb, Bootable: true},
		{Name: "sda", DriveType: models.DriveTypeHDD, SizeBytes: 900 * gb, Bootable: true},
		{Name: "sdc", DriveType: models.DriveTypeHDD, SizeBytes: 200 * gb},
		{Name: "sdd", DriveType: models.DriveTypeHDD, SizeBytes: 50 * gb, Bootable: true},
		{Name: "sr0", DriveType: models.DriveTypeODD, SizeBytes: 1 * gb, Removable: true},
	}}
	all, eligible := EligibleDisks(inv, 120)
	var names []string
	for _, d := range eligible {
		names = append(names, d.Name)
	}
	if want := []string{"sda", "sdb", "nvme0n1", "sdc"}; !slices.Equal(names, want) {
		t.Errorf("eligible order = %v, want %v", names, want)
	}
	if len(all) != 6 || all[4].InstallationEligibility.Eligible || len(all[5].InstallationEligibility.NotEligibleReasons) != 3 {
		t.Errorf("all disks not annotated: %+v %+v", all[4].InstallationEligibility, all[5].InstallationEligibility)
	}
	if inv.Disks[4].InstallationEligibility.NotEligibleReasons != nil {
		t.Error("EligibleDisks changed the caller's inventory")
	}
}
