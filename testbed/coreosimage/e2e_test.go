package coreosimage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/boot/iso"
	"github.com/rackboot/rackboot/testbed/qemu"
)

// TestE2ELiveISOBootsFromCD boots one VM (TCG; SeaBIOS, and OVMF through
// GRUB and an AHCI CD drive) from the live ISO with a config in its embed
// area, written by boot/iso as rackbootd writes a host's discovery ISO:
// the live initramfs finds the ISO by its label (coreos.liveiso), takes
// and checks images/pxeboot/rootfs.img, applies the config with Ignition
// (-platform metal) and runs the unit it enabled, which prints a tag the
// config wrote and powers off.
func TestE2ELiveISOBootsFromCD(t *testing.T) {
	if os.Getenv("RACKBOOT_E2E") != "1" {
		t.Skip("set RACKBOOT_E2E=1 to boot a VM")
	}
	m := builtMirror(t)
	nonce := make([]byte, 8)
	rand.Read(nonce)
	tag := hex.EncodeToString(nonce)
	hello := "#!/bin/sh\necho RACKBOOT-HELLO $(cat /etc/rackboot-tag) $(curl --version | head -n 1 | cut -d ' ' -f 1)\npoweroff -f\n"
	ign := `{"ignition":{"version":"3.4.0"},"storage":{"files":[` +
		`{"path":"/etc/rackboot-tag","contents":{"source":"data:,` + tag + `"}},` +
		`{"path":"/usr/local/bin/hello","mode":493,"contents":{"source":"data:,` + urlEscape(hello) + `"}}]},` +
		`"systemd":{"units":[{"name":"hello.service","enabled":true,"contents":"[Service]\nExecStart=/usr/local/bin/hello\n[Install]\nWantedBy=multi-user.target\n"}]}}`
	base, err := iso.OpenBase(m.ISO.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	img, err := base.Overlay(iso.Custom{Ignition: []byte(ign)})
	if err != nil {
		t.Fatal(err)
	}
	for _, fw := range []qemu.Firmware{qemu.BIOS, qemu.UEFI} {
		t.Run(fw.String(), func(t *testing.T) {
			dir := t.TempDir()
			cd := filepath.Join(dir, "live.iso")
			writeReader(t, cd, img)
			console := bootCDROM(t, dir, cd, fw)
			for _, want := range []string{"coreos-live", "RACKBOOT-LIVEISO /dev/sr0 label=" + m.Label,
				"RACKBOOT-ROOTFS sha256=" + m.Rootfs.SHA256 + " source=/run/media/iso/images/pxeboot/rootfs.img",
				"RACKBOOT-IGNITION-APPLIED", "RACKBOOT-UNIT-hello-START", "RACKBOOT-HELLO " + tag + " curl"} {
				if !strings.Contains(console, want) {
					t.Errorf("console lacks %q:\n%s", want, qemu.Tail(console, 40))
				}
			}
			if strings.Contains(console, "RACKBOOT-ERROR") {
				t.Errorf("errors on the console:\n%s", qemu.Tail(console, 40))
			}
		})
	}
}

func urlEscape(s string) string {
	r := strings.NewReplacer("%", "%25", "\n", "%0A", " ", "%20", "#", "%23", "$", "%24", "(", "%28", ")", "%29",
		"|", "%7C", "'", "%27", "\"", "%22")
	return r.Replace(s)
}

func writeReader(t *testing.T, path string, r interface {
	io.ReaderAt
	Size() int64
}) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(f, io.NewSectionReader(r, 0, r.Size())); err != nil {
		t.Fatal(err)
	}
}

// bootCDROM boots the ISO (qemu.BootCD) until the guest powers off and
// returns its console; a guest stuck at a prompt fails the test.
func bootCDROM(t *testing.T, dir, cdrom string, fw qemu.Firmware) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	console, err := qemu.BootCD(ctx, dir, cdrom, fw, 1024)
	if errors.Is(err, qemu.ErrNoOVMF) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("%v\nconsole tail:\n%s", err, qemu.Tail(console, 40))
	}
	return console
}
