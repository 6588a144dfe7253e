package api

import (
	"slices"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/models"
)

// A host waiting in discovery (here insufficient-unbound: upstream's
// minimums, a small VM) is handed the inventory step again at every step
// interval, as upstream does, and a disk added meanwhile shows in its
// inventory; so is a known host, which a pulled disk makes insufficient.
func TestInventoryIsRefreshedWhileDiscovering(t *testing.T) {
	e := newEnvOpts(t, enginetest.NewStore(), func(o *Options) { o.StepInterval = time.Nanosecond })
	ie := e.createInfraEnv("")
	inv := goldenInventory(t, "node-1", "52:54:00:00:00:31", "10.77.0.31/24")
	a := newStepAgent(t, e, ie.ID, testHostID, inv)
	if ran := a.poll(); !slices.Contains(ran, models.StepTypeInventory) {
		t.Fatalf("first poll ran %v", ran)
	}
	h := a.host()
	if h.Status != models.HostStatusInsufficientUnbound {
		t.Fatalf("host is %s (%s), want insufficient-unbound", h.Status, h.StatusInfo)
	}
	disk := *a.inv.Disks[0]
	disk.ID, disk.Name, disk.Path, disk.ByPath = "/dev/disk/by-path/added", "vdz", "/dev/vdz", "/dev/disk/by-path/added"
	a.inv.Disks = append(slices.Clone(a.inv.Disks), &disk)
	if ran := a.poll(); !slices.Contains(ran, models.StepTypeInventory) {
		t.Fatalf("second poll ran %v, want the inventory again", ran)
	}
	var stored models.Inventory
	if err := decodeBytes([]byte(a.host().Inventory), &stored); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(stored.Disks, func(d *models.Disk) bool { return d.Path == "/dev/vdz" }) {
		t.Errorf("the added disk is not in the stored inventory")
	}

	// A known host is asked again too (upstream's instruction manager
	// hands known hosts the inventory step), and a disk pulled from it
	// shows: the host is no longer known.
	k := newEnvOpts(t, enginetest.NewStore(), func(o *Options) {
		o.StepInterval, o.Thresholds = time.Nanosecond, testVMThresholds(t)
	})
	kie := k.createInfraEnv("")
	b := newStepAgent(t, k, kie.ID, testHostID, inv)
	b.poll()
	if h := b.host(); h.Status != models.HostStatusKnownUnbound {
		t.Fatalf("host is %s (%s), want known-unbound under the test VMs' minimums", h.Status, h.StatusInfo)
	}
	b.inv.Disks = nil
	if ran := b.poll(); !slices.Contains(ran, models.StepTypeInventory) {
		t.Fatalf("a known host was not asked for its inventory again: %v", ran)
	}
	if h := b.host(); h.Status != models.HostStatusInsufficientUnbound {
		t.Errorf("host without disks is %s (%s), want insufficient-unbound", h.Status, h.StatusInfo)
	}
}
