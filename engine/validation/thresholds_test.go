package validation

import (
	"errors"
	"testing"

	"github.com/rackboot/rackboot/engine/models"
)

func TestDefaultThresholdsAreUpstreams(t *testing.T) {
	d := DefaultThresholds()
	for _, tc := range []struct {
		role models.HostRole
		sno  bool
		want Requirements
	}{
		{models.HostRoleMaster, false, Requirements{4, 16384, 120}},
		{models.HostRoleWorker, false, Requirements{2, 8192, 120}},
		{models.HostRoleAutoAssign, false, Requirements{2, 8192, 120}},
		{models.HostRoleMaster, true, Requirements{8, 16384, 120}},
	} {
		if got := d.ForRole(tc.role, tc.sno); got != tc.want {
			t.Errorf("ForRole(%s, sno=%v) = %+v, want %+v", tc.role, tc.sno, got, tc.want)
		}
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
}

// testbedProfile is the kind of override the testbed's image set carries:
// 2-vCPU, 4 GiB VMs with 20 GiB disks.
func testbedProfile() Thresholds {
	return Thresholds{
		Profile:    "testbed-small-vms",
		Master:     Requirements{CPUCores: 2, MemoryMiB: 3072, DiskGB: 20},
		Worker:     Requirements{CPUCores: 1, MemoryMiB: 2048, DiskGB: 20},
		SingleNode: Requirements{CPUCores: 2, MemoryMiB: 3072, DiskGB: 20},
	}
}

func smallVM() HostFacts {
	h := goodHost()
	h.Inventory.CPU.Count = 2
	h.Inventory.Memory.PhysicalBytes = 4 * gib
	h.Inventory.Disks[0].SizeBytes = 21474836480
	return h
}

func TestThresholdsOverride(t *testing.T) {
	rs := ValidateHost(smallVM(), DefaultThresholds())
	if st, _, _ := HostStatus(models.HostStatusDiscovering, true, rs); st != models.HostStatusInsufficient {
		t.Fatalf("small VM with upstream thresholds: %s", st)
	}
	th, err := DefaultThresholds().Override(testbedProfile())
	if err != nil {
		t.Fatal(err)
	}
	if th.Profile != "testbed-small-vms" || th.MemoryToleranceMiB != 100 || th.DisconnectAfter != DefaultThresholds().DisconnectAfter {
		t.Errorf("override lost defaults: %+v", th)
	}
	rs = ValidateHost(smallVM(), th)
	if st, info, _ := HostStatus(models.HostStatusDiscovering, true, rs); st != models.HostStatusKnown {
		t.Errorf("small VM with the testbed profile: %s %s", st, info)
	}
	r, _ := rs.Get(HostHasCPUCoresForRole)
	if r.Message != "Sufficient CPU cores for role master" {
		t.Errorf("message = %q", r.Message)
	}
	// still a floor: one core fails even the testbed profile
	one := smallVM()
	one.Inventory.CPU.Count = 1
	r, _ = ValidateHost(one, th).Get(HostHasCPUCoresForRole)
	if r.Status != StatusFailure || r.Message != "Require at least 2 CPU cores for master role, found only 1" {
		t.Errorf("one core under the profile: %+v", r)
	}
}

func TestThresholdsOverrideMustNameProfile(t *testing.T) {
	o := testbedProfile()
	o.Profile = ""
	if _, err := DefaultThresholds().Override(o); !errors.Is(err, ErrBadThresholds) {
		t.Errorf("anonymous override accepted: %v", err)
	}
	bad := DefaultThresholds()
	bad.Worker.CPUCores = 0
	if err := bad.Validate(); !errors.Is(err, ErrBadThresholds) {
		t.Errorf("zero minimum accepted: %v", err)
	}
}
