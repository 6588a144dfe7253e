package redfish

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/rackboot/rackboot/bmc"
	bmcredfish "github.com/rackboot/rackboot/bmc/redfish"
)

// TestRackbootDriver drives the emulator, over TLS on loopback, with
// rackboot's own Redfish driver (gofish underneath) and a fake machine.
func TestRackbootDriver(t *testing.T) {
	svc, f := newTestService(t, 0)
	addr := serveTLS(t, svc)
	address := "redfish-virtualmedia://" + addr + "/redfish/v1/Systems/vm1"
	opts := bmc.Options{Backoff: time.Millisecond, Attempts: 1}
	ctx := t.Context()

	verified, err := bmcredfish.Open(address, bmc.Credentials{Username: testUser, Password: testPass}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verified.PowerState(ctx); !errors.Is(err, bmc.ErrUnreachable) {
		t.Errorf("verified TLS against the self-signed certificate = %v, want ErrUnreachable", err)
	}
	wrong, _ := bmcredfish.Open(address, bmc.Credentials{Username: testUser, Password: "nope", InsecureSkipVerify: true}, opts)
	if _, err := wrong.PowerState(ctx); !errors.Is(err, bmc.ErrBadCredentials) {
		t.Errorf("wrong password = %v, want ErrBadCredentials", err)
	}

	d, _ := bmcredfish.Open(address, bmc.Credentials{Username: testUser, Password: testPass, InsecureSkipVerify: true}, opts)
	if st, err := d.PowerState(ctx); err != nil || st != bmc.PowerOff {
		t.Fatalf("PowerState = %v, %v; want Off", st, err)
	}
	inv, err := d.Inventory(ctx)
	if err != nil || len(inv.NICs) != 1 || inv.NICs[0].MAC != testMAC {
		t.Errorf("Inventory = %+v, %v; want the NIC %s", inv, err, testMAC)
	}
	img := imageServer(t, "DISCOVERY-ISO")
	if err := d.InsertMedia(ctx, img+"/disc.iso"); err != nil {
		t.Fatalf("InsertMedia: %v", err)
	}
	if err := d.SetBootOnce(ctx, bmc.BootCd, bmc.BootModeUEFI); err != nil {
		t.Fatalf("SetBootOnce: %v", err)
	}
	if err := d.PowerOn(ctx); err != nil {
		t.Fatalf("PowerOn: %v", err)
	}
	if b, err := os.ReadFile(f.lastOpt.CD); f.lastOpt.Boot != TargetCd || string(b) != "DISCOVERY-ISO" {
		t.Errorf("power-on = %+v (CD %q, %v), want boot from the inserted CD", f.lastOpt, b, err)
	}
	if err := d.EjectMedia(ctx); err != nil {
		t.Fatalf("EjectMedia: %v", err)
	}
	// Legacy is refused on this UEFI machine; the driver retries without a mode.
	if err := d.SetBootOnce(ctx, bmc.BootHdd, bmc.BootModeLegacy); err != nil {
		t.Fatalf("SetBootOnce Hdd: %v", err)
	}
	if err := d.Reset(ctx); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	if err := d.GracefulOff(ctx); err != nil {
		t.Fatalf("GracefulOff: %v", err)
	}
	if st, err := d.PowerState(ctx); err != nil || st != bmc.PowerOff {
		t.Errorf("PowerState after GracefulOff = %v, %v", st, err)
	}
	if err := d.SetBootOnce(ctx, bmc.BootUefiHTTP, bmc.BootModeUEFI); !errors.Is(err, bmc.ErrUnsupported) {
		t.Errorf("UefiHttp (not offered) = %v, want ErrUnsupported", err)
	}
	if got, want := f.history(), "start:Cd medium: stop start:Hdd shutdown"; got != want {
		t.Errorf("machine calls = %q, want %q", got, want)
	}
}
