package redfish

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/bmc"
	bmcredfish "github.com/rackboot/rackboot/bmc/redfish"
	"github.com/rackboot/rackboot/testbed/netns"
	"github.com/rackboot/rackboot/testbed/qemu"
)

// firstBoot matches OVMF's first boot attempt on the serial console.
var firstBoot = regexp.MustCompile(`BdsDxe: (?:loading|failed to load) Boot[0-9A-F]+ "([^"]+)"`)

// TestQEMUWithRackbootDriver powers one real UEFI QEMU VM (TCG, in a
// private network namespace) through the emulator with rackboot's driver:
// insert a CD and boot once from it, reset (the override is used up),
// eject and insert while it runs, boot once from the CD again through a
// reset (a cold restart), power off. OVMF's console shows which
// device it tried first; QMP shows what is in the CD drive.
// RACKBOOT_E2E=1 and root only.
func TestQEMUWithRackbootDriver(t *testing.T) {
	if os.Getenv("RACKBOOT_E2E") != "1" {
		t.Skip("RACKBOOT_E2E=1 not set")
	}
	if err := netns.Available(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	ns, err := netns.New(ctx, "rfbmc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Close() })
	if err := ns.AddBridge(ctx, "br0", ""); err != nil {
		t.Fatal(err)
	}
	if err := ns.AddTap(ctx, "tap0", "br0"); err != nil {
		t.Fatal(err)
	}
	const mac = "52:54:00:7b:00:01"
	m, err := NewQEMU(ns, qemu.Config{Firmware: qemu.UEFI, MAC: mac, Tap: "tap0", Dir: t.TempDir()}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	svc, err := New(Config{Username: testUser, Password: testPass, MediaDir: t.TempDir()},
		System{ID: "vm1", Name: "vm1", MAC: mac, UEFI: true, Machine: m})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveTLS(t, svc)
	iso := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(make([]byte, 1<<20))
	}))
	t.Cleanup(iso.Close)
	d, err := bmcredfish.Open("redfish-virtualmedia://"+addr+"/redfish/v1/Systems/vm1",
		bmc.Credentials{Username: testUser, Password: testPass, InsecureSkipVerify: true},
		bmc.Options{Attempts: 1, RequestTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	step := func(name string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}

	step("insert", d.InsertMedia(ctx, iso.URL+"/discovery.iso"))
	step("boot once Cd", d.SetBootOnce(ctx, bmc.BootCd, bmc.BootModeUEFI))
	step("power on", d.PowerOn(ctx))
	if st, err := d.PowerState(ctx); err != nil || st != bmc.PowerOn {
		t.Fatalf("PowerState = %v, %v", st, err)
	}
	if first := waitFirstBoot(ctx, t, m, 0); !strings.Contains(first, "DVD-ROM") {
		t.Errorf("first boot attempt %q, want the virtual CD", first)
	}
	if img := cdImage(ctx, t, m); !strings.HasPrefix(img, filepath.Clean(svc.cfg.MediaDir)) {
		t.Errorf("CD drive holds %q, want the downloaded image", img)
	}

	// The override was for one boot: a warm reset (as when the guest
	// reboots) starts from the NIC, the machine's own first device.
	since := len(m.VM().Console())
	step("reset", d.Reset(ctx))
	if first := waitFirstBoot(ctx, t, m, since); !strings.Contains(first, "PXEv4") {
		t.Errorf("first boot attempt after a reset %q, want the NIC (the override was used up)", first)
	}

	step("eject", d.EjectMedia(ctx))
	if img := cdImage(ctx, t, m); img != "" {
		t.Errorf("CD drive holds %q after eject", img)
	}
	step("insert while running", d.InsertMedia(ctx, iso.URL+"/second.iso"))
	if img := cdImage(ctx, t, m); !strings.HasSuffix(img, ".iso") {
		t.Errorf("CD drive holds %q after the second insert", img)
	}

	// A reset with an override pending is a cold restart that applies it.
	before := m.VM()
	step("boot once Cd again", d.SetBootOnce(ctx, bmc.BootCd, bmc.BootModeUEFI))
	step("reset with the override", d.Reset(ctx))
	if m.VM() == before {
		t.Error("reset with a pending override did not restart QEMU")
	}
	if first := waitFirstBoot(ctx, t, m, 0); !strings.Contains(first, "DVD-ROM") {
		t.Errorf("first boot attempt after the cold reset %q, want the virtual CD", first)
	}
	vm := m.VM()
	step("power off", d.PowerOff(ctx))
	select {
	case <-vm.Done():
	case <-ctx.Done():
		t.Fatal("QEMU still runs after ForceOff")
	}
	if st, err := d.PowerState(ctx); err != nil || st != bmc.PowerOff {
		t.Errorf("PowerState after power off = %v, %v", st, err)
	}
}

// waitFirstBoot returns the name of the first boot option OVMF tried in
// the console after offset since.
func waitFirstBoot(ctx context.Context, t *testing.T, m *QEMUMachine, since int) string {
	t.Helper()
	vm := m.VM()
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		if c := vm.Console(); len(c) > since {
			if got := firstBoot.FindStringSubmatch(c[since:]); got != nil {
				t.Logf("OVMF's first boot attempt: %s", got[0])
				return got[1]
			}
		}
		select {
		case <-wctx.Done():
			t.Fatalf("no boot attempt on the console:\n%s", vm.ConsoleTail(20))
		case <-vm.Done():
			t.Fatalf("QEMU exited: %s\n%s", vm.Stderr(), vm.ConsoleTail(20))
		case <-tick.C:
		}
	}
}

// cdImage is the file QEMU has in the CD drive, "" when it is empty.
func cdImage(ctx context.Context, t *testing.T, m *QEMUMachine) string {
	t.Helper()
	raw, err := m.VM().QMP(ctx, "query-block", nil)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []struct {
		Qdev     string `json:"qdev"`
		Inserted *struct {
			File string `json:"file"`
		} `json:"inserted"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if strings.Contains(b.Qdev, "cd0dev") && b.Inserted != nil {
			return b.Inserted.File
		}
	}
	return ""
}
