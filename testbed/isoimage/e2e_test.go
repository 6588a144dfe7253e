package isoimage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/boot/iso"
	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/qemu"
)

// TestE2EBootOverlayISO boots one BIOS VM (TCG) from the discovery ISO as
// boot/iso serves it over HTTP, and reads back from its serial console the
// config.ign and kernel argument the overlay carried.
func TestE2EBootOverlayISO(t *testing.T) {
	if os.Getenv("RACKBOOT_E2E") != "1" {
		t.Skip("set RACKBOOT_E2E=1 to boot a VM")
	}
	needTools(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cache, err := image.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	art, err := image.Build(ctx, cache)
	if err != nil {
		t.Fatal(err)
	}
	basePath, err := Build(ctx, cache, art.Kernel, art.Initrd)
	if err != nil {
		t.Fatal(err)
	}
	base, err := iso.OpenBase(basePath)
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()

	nonce := make([]byte, 8)
	rand.Read(nonce)
	tag := hex.EncodeToString(nonce)
	ignition := `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/rackboot-iso","contents":{"source":"data:,` + tag + `"}}]}}`
	img, err := base.Overlay(iso.Custom{Ignition: []byte(ignition), ExtraKernelArgs: "rackboot.iso=" + tag})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(img)
	defer srv.Close()

	dir := t.TempDir()
	cdrom := filepath.Join(dir, "discovery.iso")
	if out, err := exec.CommandContext(ctx, "curl", "-sSf", "-o", cdrom, srv.URL+"/discovery.iso").CombinedOutput(); err != nil {
		t.Fatalf("curl: %v\n%s", err, out)
	}
	fw := qemu.BIOS
	if os.Getenv("RACKBOOT_E2E_UEFI") == "1" {
		fw = qemu.UEFI // the same check through OVMF and GRUB (slower)
	}
	console := bootCDROM(ctx, t, dir, cdrom, fw)

	t.Logf("console tail:\n%s", qemu.Tail(console, 15))
	got, err := image.ParseIgnition(console)
	if err != nil {
		t.Fatalf("%v\nconsole tail:\n%s", err, qemu.Tail(console, 30))
	}
	if string(got) != ignition {
		t.Errorf("VM's /config.ign is %q, want %q", got, ignition)
	}
	if !strings.Contains(console, "RACKBOOT-CMDLINE") || !strings.Contains(console, "rackboot.iso="+tag) ||
		!strings.Contains(console, DefaultKargs) {
		t.Errorf("kernel command line lacks the overlay's arguments:\n%s", qemu.Tail(console, 30))
	}
}

// bootCDROM boots the ISO (qemu.BootCD) until the guest powers off and
// returns its console; a guest stuck at a prompt fails the test.
func bootCDROM(ctx context.Context, t *testing.T, dir, cdrom string, fw qemu.Firmware) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	console, err := qemu.BootCD(ctx, dir, cdrom, fw, 512)
	if errors.Is(err, qemu.ErrNoOVMF) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("%v\nconsole tail:\n%s", err, qemu.Tail(console, 40))
	}
	return console
}
