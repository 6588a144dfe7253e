package main

import (
	"errors"
	"testing"

	"github.com/rackboot/rackboot/testbed/qemu"
)

func TestParseVM(t *testing.T) {
	v, err := parseVM("id=vm1,mac=52:54:00:AB:00:01,tap=tap0,firmware=uefi,disk=/tmp/d.qcow2,memory=768")
	if err != nil {
		t.Fatal(err)
	}
	want := vmSpec{ID: "vm1", MAC: "52:54:00:ab:00:01", Tap: "tap0", Disk: "/tmp/d.qcow2", Firmware: qemu.UEFI, MemoryMB: 768}
	if v != want {
		t.Errorf("parseVM = %+v, want %+v", v, want)
	}
	for _, bad := range []string{
		"", "id=vm1,mac=52:54:00:00:00:01", "id=vm1,mac=zz,tap=t", "id=vm1,mac=52:54:00:00:00:01,tap=t,firmware=coreboot",
		"id=vm1,mac=52:54:00:00:00:01,tap=t,color=red", "id=vm1,mac=52:54:00:00:00:01,tap", "id=vm1,mac=52:54:00:00:00:01,tap=t,memory=1",
		"id=../x,mac=52:54:00:00:00:01,tap=t",
	} {
		if _, err := parseVM(bad); !errors.Is(err, errSpec) {
			t.Errorf("parseVM(%q) = %v, want errSpec", bad, err)
		}
	}
}

func TestSystemRejectsCommaPaths(t *testing.T) {
	v := vmSpec{ID: "vm1", MAC: "52:54:00:00:00:01", Tap: "tap0", Disk: "/tmp/a,b.img"}
	if _, _, err := v.system("/tmp"); !errors.Is(err, qemu.ErrConfig) {
		t.Errorf("disk with a comma = %v, want qemu.ErrConfig", err)
	}
}
