package redfish

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/testbed/qemu"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestQEMUArgsGolden pins the drives and boot order a power-on adds to the
// VM's QEMU command line, per firmware and override.
func TestQEMUArgsGolden(t *testing.T) {
	var b strings.Builder
	for _, fw := range []qemu.Firmware{qemu.BIOS, qemu.UEFI} {
		m, err := NewQEMU(nil, qemu.Config{Firmware: fw, MAC: "52:54:00:00:00:01", Tap: "tap0", Dir: "/vm"}, "/vm/disk.qcow2")
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []StartOptions{
			{}, {Boot: TargetPxe, Once: true}, {Boot: TargetCd, Once: true, CD: "/media/vm1-cd-1.iso"},
			{Boot: TargetHdd, Once: true}, {Boot: TargetCd}, {Boot: TargetHdd},
		} {
			b.WriteString("# " + fw.String() + " boot=" + o.Boot)
			if o.Once {
				b.WriteString(" once")
			}
			b.WriteString("\n" + strings.Join(m.Args(o), " ") + "\n")
		}
	}
	golden := filepath.Join("testdata", "qemu.args")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("QEMU args differ from %s (go test -update):\n%s", golden, b.String())
	}
}
