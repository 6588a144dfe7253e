package bmhctl_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bmhctl"
	"github.com/rackboot/rackboot/engine/models"
)

// automatedCleaningMode metadata: the install step wipes every other disk
// of the host, not the installation disk, the installation media, a
// removable or an optical drive; disabled (or unset) wipes nothing.
func TestWipeDisks(t *testing.T) {
	inv, _ := json.Marshal(models.Inventory{Disks: []*models.Disk{
		{ID: "/dev/disk/by-id/wwn-1", Path: "/dev/sda", DriveType: models.DriveTypeSSD},
		{ID: "/dev/disk/by-id/wwn-2", Path: "/dev/sdb", DriveType: models.DriveTypeHDD},
		{ID: "/dev/disk/by-id/usb-1", Path: "/dev/sdc", Removable: true},
		{ID: "/dev/sr0", Path: "/dev/sr0", DriveType: models.DriveTypeODD},
		{ID: "/dev/disk/by-id/virtual-iso", Path: "/dev/sdd", IsInstallationMedia: true},
		{ID: "/dev/disk/by-id/nvme-1", Path: "/dev/nvme0n1", DriveType: "NVME"},
	}})
	h := engine.Host{ID: hostID, Inventory: inv, InstallationDiskID: "/dev/disk/by-id/wwn-1"}
	b := engine.BareMetalHost{Name: "vm1", AutomatedCleaningMode: engine.CleaningMetadata}
	if got, want := bmhctl.WipeDisks(b, h), []string{"/dev/sdb", "/dev/nvme0n1"}; !slices.Equal(got, want) {
		t.Errorf("metadata cleaning wipes %q, want %q", got, want)
	}
	for _, mode := range []string{"", engine.CleaningDisabled} {
		b.AutomatedCleaningMode = mode
		if got := bmhctl.WipeDisks(b, h); got != nil {
			t.Errorf("cleaning %q wipes %q", mode, got)
		}
	}
}
