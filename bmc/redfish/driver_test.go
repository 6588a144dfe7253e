package redfish_test

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/bmc"
)

// TestEveryVendorReachesTheEffect drives each mockup through what the
// controller does for a virtual-media boot and checks the BMC's state, not
// the requests: the image is in the CD slot, the next boot is the CD, the
// machine is on; after the install the CD is empty and the next boot is
// the disk.
func TestEveryVendorReachesTheEffect(t *testing.T) {
	for _, vendor := range vendors(t) {
		t.Run(vendor, func(t *testing.T) {
			m := newMockBMC(t, vendor)
			srv := start(t, m)
			d := newDriver(t, srv.URL, goodCreds, bmc.Options{})
			ctx := t.Context()
			sysPath, cd := systemPath(m), cdPath(m)
			wantResets := 1 // PowerOn
			if m.doc(sysPath)["PowerState"] == "On" {
				wantResets++ // PowerOff
			}

			must(t, d.PowerOff(ctx))
			if st, err := d.PowerState(ctx); err != nil || st != bmc.PowerOff {
				t.Fatalf("after PowerOff: %v %v", st, err)
			}
			must(t, d.InsertMedia(ctx, isoURL))
			if got := m.doc(cd); got["Image"] != isoURL || got["Inserted"] != true {
				t.Errorf("CD slot after InsertMedia: image=%v inserted=%v", got["Image"], got["Inserted"])
			}
			must(t, d.SetBootOnce(ctx, bmc.BootCd, bmc.BootModeUEFI))
			must(t, d.PowerOn(ctx))
			if boots := m.Boots(); len(boots) != 1 || boots[0] != "cd "+isoURL {
				t.Errorf("the machine booted %q after SetBootOnce(Cd) and PowerOn; want the CD with the image", boots)
			}
			must(t, d.PowerOn(ctx)) // already on: nothing sent
			if got := m.doc(sysPath)["PowerState"]; got != "On" {
				t.Errorf("PowerState after PowerOn = %v", got)
			}
			if n := strings.Count(strings.Join(m.requests(), "\n"), "ComputerSystem.Reset"); n != wantResets {
				t.Errorf("Reset posted %d times for off, on, on again; want %d", n, wantResets)
			}

			must(t, d.EjectMedia(ctx))
			must(t, d.EjectMedia(ctx)) // already empty
			if got := m.doc(cd); got["Inserted"] != false || got["Image"] != "" {
				t.Errorf("CD slot after EjectMedia: image=%v inserted=%v", got["Image"], got["Inserted"])
			}
			must(t, d.SetBootOnce(ctx, bmc.BootHdd, bmc.BootModeUnchanged))
			must(t, d.Reset(ctx))
			if boots := m.Boots(); len(boots) != 2 || boots[1] != "disk" {
				t.Errorf("the machine booted %q after SetBootOnce(Hdd) and Reset; want the disk last", boots)
			}

			inv, err := d.Inventory(ctx)
			must(t, err)
			if inv.CPU.Count == 0 || inv.MemoryGiB == 0 || inv.Manufacturer == "" || len(inv.NICs) == 0 {
				t.Errorf("inventory incomplete: %+v", inv)
			}
			for _, n := range inv.NICs {
				if hw, err := net.ParseMAC(n.MAC); err != nil || hw.String() != n.MAC {
					t.Errorf("NIC %s MAC %q is not in lower-case colon form", n.ID, n.MAC)
				}
			}
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	m := newMockBMC(t, "dell-idrac9")
	srv := start(t, m)
	d := newDriver(t, srv.URL, goodCreds, bmc.Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 8 {
		wg.Go(func() {
			_, err := d.Inventory(t.Context())
			errs <- err
			_, err = d.PowerState(t.Context())
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	connects := 0
	for _, r := range m.requests() {
		if strings.HasPrefix(r, "GET /redfish/v1/ ") {
			connects++
		}
	}
	if connects != 1 {
		t.Errorf("service root fetched %d times by one driver, want once", connects)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// An iDRAC whose manager offers no ImportSystemConfiguration (older
// firmware) gets the standard one-time Cd override instead.
func TestIDRACWithoutOEMBoot(t *testing.T) {
	m := newMockBMC(t, "dell-idrac9")
	m.setDoc("/redfish/v1/Managers/iDRAC.Embedded.1", "Actions", map[string]any{})
	srv := start(t, m)
	d := newDriver(t, srv.URL, goodCreds, bmc.Options{})
	must(t, d.InsertMedia(t.Context(), isoURL))
	must(t, d.SetBootOnce(t.Context(), bmc.BootCd, bmc.BootModeUEFI))
	boot := m.doc("/redfish/v1/Systems/System.Embedded.1")["Boot"].(map[string]any)
	if boot["BootSourceOverrideTarget"] != "Cd" || boot["BootSourceOverrideEnabled"] != "Once" || boot["BootSourceOverrideMode"] != "UEFI" {
		t.Errorf("boot override = %v, want Cd once in UEFI", boot)
	}
	must(t, d.PowerOn(t.Context()))
	if boots := m.Boots(); len(boots) != 1 || boots[0] != "cd "+isoURL {
		t.Errorf("the machine booted %q, want the CD", boots)
	}
}

// A slot that never shows the accepted image is an error naming the BMC,
// the slot and what it reported, after Options.MediaTimeout.
func TestInsertNeverShows(t *testing.T) {
	m := newMockBMC(t, "dell-idrac9")
	m.Override = func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "InsertMedia") {
			w.WriteHeader(http.StatusNoContent) // accepted, and forgotten
			return true
		}
		return false
	}
	srv := start(t, m)
	d := newDriver(t, srv.URL, goodCreds, bmc.Options{MediaTimeout: time.Nanosecond})
	err := d.InsertMedia(t.Context(), isoURL)
	host := strings.TrimPrefix(srv.URL, "http://")
	if !errors.Is(err, bmc.ErrBMC) || !strings.Contains(err.Error(), host) ||
		!strings.Contains(err.Error(), `slot /redfish/v1/Systems/System.Embedded.1/VirtualMedia/1 still reports Inserted=false Image=""`) {
		t.Errorf("InsertMedia = %v, want ErrBMC naming the BMC, the slot and its state", err)
	}
	for _, r := range m.requests() {
		if strings.HasPrefix(r, "PATCH") {
			t.Errorf("the iDRAC slot was PATCHed: %s", r)
		}
	}
}
