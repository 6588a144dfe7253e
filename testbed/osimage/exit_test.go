package osimage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/ipxe"
	"github.com/rackboot/rackboot/testbed/qemu"
)

// ipxeDir holds Debian's iPXE binaries (package ipxe).
const ipxeDir = "/usr/lib/ipxe"

// exitServer runs dnsmasq on the bed's bridge until the test ends: DHCP,
// and TFTP of ipxe.efi (UEFI PXE clients) or undionly.kpxe (BIOS) and, to
// iPXE (user class iPXE), of exit.ipxe, whose bytes are the script.
func (b *bed) exitServer(t *testing.T, script []byte) {
	t.Helper()
	root := filepath.Join(b.dir, "tftp")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ipxe.efi", "undionly.kpxe"} {
		data, err := os.ReadFile(filepath.Join(ipxeDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "exit.ipxe"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	b.dnsmasq(t, "--log-dhcp", "--enable-tftp", "--tftp-root="+root,
		"--dhcp-userclass=set:ipxe,iPXE", "--dhcp-match=set:efi64,option:client-arch,7",
		"--dhcp-boot=tag:ipxe,exit.ipxe",
		"--dhcp-boot=tag:!ipxe,tag:efi64,ipxe.efi",
		"--dhcp-boot=tag:!ipxe,tag:!efi64,undionly.kpxe")
}

// TestIPXEExitScriptFallsThroughToDiskUnderOVMF: boot-order control on a
// network-first UEFI machine. OVMF PXE-boots ipxe.efi from dnsmasq, iPXE
// fetches the installed host's script (ipxe.ExitScript) and runs it, and
// OVMF then boots the next boot option, the installed disk, which prints
// RACKBOOT-OS-BOOT — not OVMF's setup menu.
func TestIPXEExitScriptFallsThroughToDiskUnderOVMF(t *testing.T) {
	requireVM(t)
	img := builtImage(t)
	b := newBed(t)
	b.exitServer(t, ipxe.ExitScript())
	disk := diskCopy(t, img, b.dir)
	start := time.Now()
	vm := startExitVM(t, b, qemu.UEFI, disk)
	// With "exit" (status 0) OVMF logs `starting Boot0000 "UiApp"` and
	// shows its menu: stop waiting then.
	waitConsole(t, vm, `RACKBOOT-OS-BOOT|starting Boot[0-9A-F]+ "UiApp"`, 1, 8*time.Minute)
	con := vm.Console()
	if !strings.Contains(con, "RACKBOOT-OS-BOOT") {
		t.Fatalf("after iPXE OVMF opened its boot manager menu (UiApp) instead of the disk:\n%s",
			qemu.Tail(con, 30))
	}
	t.Logf("power-on to RACKBOOT-OS-BOOT through iPXE's exit: %s", time.Since(start).Round(time.Second))
	assertScriptRanBefore(t, con, "RACKBOOT-OS-BOOT", "NBP filename is ipxe.efi")
}

// startExitVM starts a VM with its NIC first and disk second in the boot
// order.
func startExitVM(t *testing.T, b *bed, fw qemu.Firmware, disk string) *qemu.VM {
	t.Helper()
	vm, err := qemu.Start(t.Context(), b.ns, qemu.Config{Firmware: fw, MAC: vmMAC, Tap: "tap0",
		Dir: b.dir, Disk: disk, Boot: qemu.BootNetworkThenDisk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		vm.Stop()
		if t.Failed() {
			t.Logf("console tail:\n%s\nqemu: %s", vm.ConsoleTail(60), vm.Stderr())
		}
	})
	return vm
}

// assertScriptRanBefore: before marker, the console shows the firmware's
// network boot (first), iPXE's banner and iPXE fetching exit.ipxe.
func assertScriptRanBefore(t *testing.T, con, marker, first string) {
	t.Helper()
	end := strings.Index(con, marker)
	if end < 0 {
		t.Fatalf("console lacks %s", marker)
	}
	before := con[:end]
	at := 0
	for _, want := range []string{first, "iPXE", "exit.ipxe"} {
		i := strings.Index(before[at:], want)
		if i < 0 {
			t.Fatalf("before %s the console lacks %q (after offset %d):\n%s", marker, want, at, qemu.Tail(before, 40))
		}
		at += i + len(want)
	}
}

// biosMarker is what biosDisk's boot sector writes to the serial port.
const biosMarker = "RACKBOOT-BIOS-DISK-BOOT"

// biosDisk writes a 1 MiB disk whose MBR boot sector (16-bit code, loaded
// at 0:7c00) writes biosMarker to COM1 and halts: the OS image boots only
// under UEFI, so under SeaBIOS this disk stands for the installed system.
func biosDisk(t *testing.T, dir string) string {
	t.Helper()
	code := []byte{
		0x31, 0xc0, // xor ax, ax
		0x8e, 0xd8, // mov ds, ax
		0xfc,             // cld
		0xbe, 0x16, 0x7c, // mov si, 0x7c16 (the message)
		0xba, 0xf8, 0x03, // mov dx, 0x3f8 (COM1)
		0xac,       // 0x0b: lodsb
		0x84, 0xc0, // test al, al
		0x74, 0x03, // jz 0x13
		0xee,       // out dx, al
		0xeb, 0xf8, // jmp 0x0b
		0xf4,       // 0x13: hlt
		0xeb, 0xfd, // jmp 0x13
	}
	sector := make([]byte, 512)
	copy(sector, code)
	copy(sector[len(code):], "\r\n"+biosMarker+"\r\n\x00")
	sector[510], sector[511] = 0x55, 0xaa
	path := filepath.Join(dir, "bios-disk.img")
	if err := os.WriteFile(path, sector, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, mib); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestIPXEExitScriptFallsThroughToDiskUnderSeaBIOS: the same under
// SeaBIOS. The NIC's iPXE option ROM fetches the installed host's script
// and runs it, iPXE returns to the BIOS, and SeaBIOS boots the next boot
// device, a disk whose boot sector prints biosMarker.
func TestIPXEExitScriptFallsThroughToDiskUnderSeaBIOS(t *testing.T) {
	requireVM(t)
	b := newBed(t)
	b.exitServer(t, ipxe.ExitScript())
	disk := biosDisk(t, b.dir)
	start := time.Now()
	vm := startExitVM(t, b, qemu.BIOS, disk)
	waitConsole(t, vm, biosMarker, 1, 5*time.Minute)
	t.Logf("power-on to %s through iPXE's exit: %s", biosMarker, time.Since(start).Round(time.Second))
	assertScriptRanBefore(t, vm.Console(), "\n"+biosMarker, "iPXE initialising devices")
}
