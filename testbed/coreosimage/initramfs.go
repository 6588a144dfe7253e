package coreosimage

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/cavaliergopher/cpio"

	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/internal/buildfs"
)

// The live initramfs's /init and its rootfs fetch-and-check script.
var (
	//go:embed files/live-init
	liveInitTemplate string
	//go:embed files/live-rootfs
	LiveRootfsScript string
)

// Paths inside the live initramfs.
const (
	RootfsScriptPath = "usr/bin/live-rootfs"
	// RootfsSHA256Path holds the sha256 of the only rootfs the initramfs
	// accepts (CoreOS's initramfs carries its rootfs's identity too).
	RootfsSHA256Path = "etc/coreos-live-rootfs.sha256"
)

// efivarfs is loaded by /init under UEFI only.
const efivarfs = "efivarfs"

// storageModules let the agent mount a CoreOS metal image's ext4 boot
// partition over a loop device, in load order.
var storageModules = []string{"loop", "crc16", "mbcache", "jbd2", "crc32c_generic", "ext4"}

// isoModules let the live system read its ISO (IDE and AHCI CD-ROMs,
// ISO9660), in load order. /init loads them only when it boots from the
// ISO (coreos.liveiso), so a PXE-booted host has no CD-ROM drive to report.
var isoModules = []string{"scsi_common", "scsi_mod", "cdrom", "sr_mod", "libata", "ata_piix", "libahci", "ahci", "isofs"}

// liveModules are the modules /init always loads, in order: the testbed's
// virtio set, then storageModules.
func liveModules() []string { return append(image.Modules(), storageModules...) }

// allModules are the modules the initramfs carries.
func allModules() []string { return append(append(liveModules(), isoModules...), efivarfs) }

// liveInit is /init with the module load orders filled in.
func liveInit() string {
	return strings.NewReplacer("@MODULES@", strings.Join(liveModules(), " "),
		"@ISO_MODULES@", strings.Join(isoModules, " ")).Replace(liveInitTemplate)
}

// initramfsInputs are the host files and the rootfs sum of the live
// initramfs.
type initramfsInputs struct {
	busybox, ignition string
	modules           map[string]string // name -> .ko
	rootfsSHA256      string
}

// initramfsDirs are created besides the parents of the files.
var initramfsDirs = []string{"dev", "home", "proc", "root", "run", "sbin", "sys", "tmp", "var", "var/log",
	"usr/lib/ignition", "usr/local/bin", "etc/systemd/system"}

func (in initramfsInputs) entries() ([]buildfs.Entry, error) {
	es := []buildfs.Entry{
		{Name: "bin/busybox", Mode: 0o755, Src: in.busybox},
		{Name: "init", Mode: 0o755, Body: liveInit()},
		{Name: RootfsScriptPath, Mode: 0o755, Body: LiveRootfsScript},
		{Name: RootfsSHA256Path, Mode: 0o644, Body: in.rootfsSHA256 + "\n"},
		{Name: image.IgnitionPath, Mode: 0o755, Src: in.ignition},
	}
	for _, f := range image.DiscoveryFiles() {
		es = append(es, buildfs.Entry{Name: f.Name, Mode: cpio.FileMode(f.Mode), Body: f.Body})
	}
	for _, m := range allModules() {
		ko, ok := in.modules[m]
		if !ok {
			return nil, fmt.Errorf("%w: module %s has no file", ErrBuild, m)
		}
		es = append(es, buildfs.Entry{Name: "lib/modules/" + m + ".ko", Mode: 0o644, Src: ko})
	}
	return es, nil
}

// writeInitramfs writes the live initramfs to name.
func writeInitramfs(name string, in initramfsInputs) error {
	es, err := in.entries()
	if err != nil {
		return err
	}
	return writeArchiveFile(name, initramfsDirs, es)
}
