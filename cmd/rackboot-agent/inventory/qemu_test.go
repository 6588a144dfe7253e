package inventory_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/internal/vmtest"
	"github.com/rackboot/rackboot/engine/models"
)

// vmRun is what the VM's /init does after vmtest's set-up (eth0 at
// vmtest.Addr): a hostname, a default route and a resolver (the NIC sits
// on a QEMU hub with no other port, so nothing leaves the VM), then
// invdump, then it powers off.
const vmRun = `hostname rackboot-vm
ip route add default via 192.0.2.1 metric 42
echo "nameserver 192.0.2.53" > /etc/resolv.conf
/invdump
sync
`

// TestCollectInQEMU boots QEMU VMs (SeaBIOS on i440fx, OVMF on q35) with
// known hardware (2 CPUs, 1 GiB, two virtio disks of known sizes and
// serials, a virtio NIC with a known MAC, SMBIOS vendor strings) and checks
// that the collector, run inside as a static binary, reports exactly that.
// It needs the testbed (RACKBOOT_E2E=1, qemu, OVMF, the kernel package).
func TestCollectInQEMU(t *testing.T) {
	vmtest.RequireE2E(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	art := vmtest.BootImage(ctx, t)
	initrd := vmtest.Initrd(ctx, t, art.Initrd, t.TempDir(), "./internal/invdump", "invdump", vmtest.Init("vdb", vmRun))
	for _, mode := range []string{models.BootModeBIOS, models.BootModeUEFI} {
		t.Run(mode, func(t *testing.T) {
			inv := runVM(ctx, t, art.Kernel, initrd, mode)
			checkVM(t, inv, mode)
		})
	}
}

func runVM(ctx context.Context, t *testing.T, kernel, initrd, mode string) *models.Inventory {
	dir := t.TempDir()
	disk0, disk1 := filepath.Join(dir, "d0.img"), filepath.Join(dir, "d1.img")
	writeDisk(t, disk0, 3<<30, true)
	writeDisk(t, disk1, 1<<30, false)
	console := filepath.Join(dir, "console.log")
	var firmware []string
	if mode == models.BootModeUEFI {
		vars, err := os.ReadFile("/usr/share/OVMF/OVMF_VARS_4M.fd")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "vars.fd"), vars, 0o600); err != nil {
			t.Fatal(err)
		}
		firmware = []string{"-machine", "q35",
			"-drive", "if=pflash,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd",
			"-drive", "if=pflash,format=raw,file=" + filepath.Join(dir, "vars.fd")}
	}
	args := append(firmware, "-accel", "tcg", "-m", "1024", "-smp", "2",
		"-nographic", "-monitor", "none", "-parallel", "none", "-no-reboot",
		"-serial", "file:"+console,
		"-kernel", kernel, "-initrd", initrd,
		"-append", "console=ttyS0 BOOTIF=01-52-54-00-12-34-77 rackboot.url=http://192.0.2.1/?api_key=sekrit",
		"-smbios", "type=1,manufacturer=Rackboot Labs,product=TestVM,serial=RB-0001",
		"-netdev", "hubport,id=n0,hubid=0", "-device", "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:77",
		"-drive", "if=none,id=d0,format=raw,file="+disk0, "-device", "virtio-blk-pci,drive=d0,serial=rb-disk0",
		"-drive", "if=none,id=d1,format=raw,file="+disk1, "-device", "virtio-blk-pci,drive=d1,serial=rb-disk1")
	cmd := exec.CommandContext(ctx, "qemu-system-x86_64", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("qemu: %v\n%s\nconsole:\n%s", err, out, readTail(console))
	}
	return parseConsole(t, console)
}

// writeDisk makes a sparse raw disk, with an MBR boot signature if boot.
func writeDisk(t *testing.T, name string, size int64, boot bool) {
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if boot {
		if _, err := f.WriteAt([]byte{0x55, 0xAA}, 510); err != nil {
			t.Fatal(err)
		}
	}
}

func readTail(name string) string {
	b, _ := os.ReadFile(name)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

func parseConsole(t *testing.T, console string) *models.Inventory {
	b, err := os.ReadFile(console)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "\r", "")
	_, rest, ok := strings.Cut(s, "RACKBOOT-INVENTORY-BEGIN\n")
	body, _, ok2 := strings.Cut(rest, "\nRACKBOOT-INVENTORY-END")
	if !ok || !ok2 {
		t.Fatalf("no inventory on the console:\n%s", readTail(console))
	}
	var inv models.Inventory
	if err := json.Unmarshal([]byte(body), &inv); err != nil {
		t.Fatalf("inventory JSON: %v\n%s", err, body)
	}
	t.Logf("inventory from the VM:\n%s", body)
	return &inv
}

func checkVM(t *testing.T, inv *models.Inventory, mode string) {
	if inv.CPU == nil || inv.CPU.Count != 2 || inv.CPU.Architecture != "x86_64" || len(inv.CPU.Flags) == 0 {
		t.Errorf("cpu = %+v", inv.CPU)
	}
	if m := inv.Memory; m == nil || m.PhysicalBytes != 1<<30 || m.PhysicalBytesMethod != models.MemoryMethodDmidecode ||
		m.UsableBytes < 800<<20 || m.UsableBytes > 1<<30 {
		t.Errorf("memory = %+v", inv.Memory)
	}
	if v := inv.SystemVendor; v == nil || v.Manufacturer != "Rackboot Labs" || v.ProductName != "TestVM" || v.SerialNumber != "RB-0001" {
		t.Errorf("system vendor = %+v", inv.SystemVendor)
	}
	if b := inv.Boot; b == nil || b.CurrentBootMode != mode || b.PxeInterface != "01-52-54-00-12-34-77" || strings.Contains(b.CommandLine, "sekrit") {
		t.Errorf("boot = %+v", inv.Boot)
	}
	// Debian's OVMF_CODE_4M is the build without secure boot: it defines no
	// SecureBoot variable, which upstream reports as NotSupported.
	if inv.Boot != nil && inv.Boot.SecureBootState != models.SecureBootStateNotSupported {
		t.Errorf("secure_boot_state = %q", inv.Boot.SecureBootState)
	}
	if len(inv.Gpus) != 1 || inv.Gpus[0].VendorID != "1234" || inv.Gpus[0].DeviceID != "1111" {
		t.Errorf("gpus = %+v, want QEMU's standard VGA", inv.Gpus)
	}
	if inv.Hostname != "rackboot-vm" {
		t.Errorf("hostname = %q", inv.Hostname)
	}
	want := map[string]struct {
		size   int64
		serial string
		boot   bool
	}{"vda": {3 << 30, "rb-disk0", true}, "vdb": {1 << 30, "rb-disk1", false}}
	if len(inv.Disks) != len(want) {
		t.Errorf("%d disks, want %d", len(inv.Disks), len(want))
	}
	for _, d := range inv.Disks {
		w, ok := want[d.Name]
		if !ok || d.SizeBytes != w.size || d.Serial != w.serial || d.Bootable != w.boot || !d.InstallationEligibility.Eligible {
			t.Errorf("disk %s = %+v", d.Name, d)
		}
	}
	if len(inv.Interfaces) != 1 {
		t.Fatalf("interfaces = %+v", inv.Interfaces)
	}
	nic := inv.Interfaces[0]
	if nic.Name != "eth0" || nic.MacAddress != "52:54:00:12:34:77" || !nic.HasCarrier || nic.Type != "physical" ||
		strings.Join(nic.IPV4Addresses, ",") != "192.0.2.10/24" || nic.Mtu != 1500 {
		t.Errorf("nic = %+v", nic)
	}
	var def bool
	for _, r := range inv.Routes {
		def = def || (r.Destination == "0.0.0.0" && r.Gateway == "192.0.2.1" && r.Metric == 42 && r.Interface == "eth0")
	}
	if !def {
		t.Errorf("no default route via 192.0.2.1 in %+v", inv.Routes)
	}
}
