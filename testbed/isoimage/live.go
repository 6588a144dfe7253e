package isoimage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
)

// Paths of a CoreOS live ISO's PXE files (images/pxeboot/).
const (
	LiveKernelPath = "images/pxeboot/vmlinuz"
	LiveInitrdPath = "images/pxeboot/initrd.img"
	LiveRootfsPath = "images/pxeboot/rootfs.img"
)

// liveFormat changes whenever the live layout changes in a way the hashed
// inputs do not capture.
const liveFormat = "rackboot-coreos-live-iso-1"

// Live is what a CoreOS-shaped live ISO is built from.
type Live struct {
	Label  string // ISO9660 volume label; the kernel gets coreos.liveiso=<Label>
	Kernel string // host file of images/pxeboot/vmlinuz
	Initrd string // host file of images/pxeboot/initrd.img (the live initramfs)
	Rootfs string // host file of images/pxeboot/rootfs.img (the live rootfs)
	// Kargs are the kernel arguments after CoreOS's (coreos.liveiso,
	// ignition.firstboot, ignition.platform.id=metal), e.g. console=ttyS0.
	Kargs string
}

// DefaultKargs is the whole kernel command line of the ISO's bootloaders,
// as the kargs areas hold it (CoreOS's arguments first).
func (l Live) DefaultKargs() string {
	s := "coreos.liveiso=" + l.Label + " ignition.firstboot ignition.platform.id=metal"
	if l.Kargs != "" {
		s += " " + l.Kargs
	}
	return s
}

// BuildLive makes a CoreOS-shaped live ISO under cacheDir and returns its
// path: the PXE files under images/pxeboot/, the Ignition embed area
// images/ignition.img with coreos/igninfo.json, coreos/kargs.json, and
// isolinux (BIOS) and GRUB (UEFI) booting vmlinuz with initrd.img and the
// embed area as initrds, as a Fedora CoreOS live ISO does. An ISO built
// from inputs of the same content is reused.
func BuildLive(ctx context.Context, cacheDir string, l Live) (string, error) {
	if err := CheckTools(); err != nil {
		return "", err
	}
	if l.Label == "" || len(l.Label) > 32 {
		return "", fmt.Errorf("%w: live ISO label %q: 1 to 32 characters", ErrBuild, l.Label)
	}
	files, err := liveFiles(l)
	if err != nil {
		return "", err
	}
	key, err := liveKey(l, files)
	if err != nil {
		return "", err
	}
	return cached(cacheDir, filepath.Join("live-"+key, "live.iso"), func(stage string) (string, error) {
		return buildTree(ctx, stage, treeSpec{label: l.Label, files: files, grafts: []string{
			"/" + LiveKernelPath + "=" + l.Kernel, "/" + LiveInitrdPath + "=" + l.Initrd, "/" + LiveRootfsPath + "=" + l.Rootfs}})
	})
}

// liveFiles are the generated files of the live ISO, by path.
func liveFiles(l Live) (map[string][]byte, error) {
	kargs := l.DefaultKargs()
	if len(kargs)+1 >= KargsAreaSize {
		return nil, fmt.Errorf("%w: kernel arguments longer than the %d-byte area", ErrBuild, KargsAreaSize)
	}
	iso, ioff := liveIsolinux(kargs)
	grub, goff := liveGrub(kargs)
	kj, err := kargsJSONOf(kargs, ioff, goff)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{
		isolinuxCfg:           []byte(iso),
		grubCfg:               []byte(grub),
		"coreos/igninfo.json": []byte(ignInfoJSON),
		"coreos/kargs.json":   []byte(kj),
		EmbedPath:             make([]byte, EmbedAreaSize),
	}, nil
}

// liveIsolinux is the live isolinux.cfg and the offset of its kargs area.
func liveIsolinux(kargs string) (string, int) {
	head := "SERIAL 0 115200\nDEFAULT live\nPROMPT 0\nTIMEOUT 0\n" +
		"LABEL live\n  KERNEL /" + LiveKernelPath + "\n" +
		"  APPEND initrd=/" + LiveInitrdPath + ",/" + EmbedPath + " "
	return head + kargsArea(kargs) + "\n", len(head)
}

// liveGrub is the live grub.cfg and the offset of its kargs area.
func liveGrub(kargs string) (string, int) {
	head := "serial --unit=0 --speed=115200\nterminal_input serial console\nterminal_output serial console\n" +
		"set timeout=0\nset default=0\nmenuentry live {\n  linux /" + LiveKernelPath + " "
	tail := "\n  initrd /" + LiveInitrdPath + " /" + EmbedPath + "\n}\n"
	return head + kargsArea(kargs) + tail, len(head)
}

// liveKey hashes everything the live ISO is made of.
func liveKey(l Live, files map[string][]byte) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n%s\n", liveFormat, l.Label, files[isolinuxCfg], files[grubCfg], grubEmbedded)
	for _, f := range []string{l.Kernel, l.Initrd, l.Rootfs, IsolinuxBin, IsohdpfxBin, LdlinuxC32,
		filepath.Join(GrubEFIDir, "moddep.lst"), filepath.Join(GrubEFIDir, "kernel.img")} {
		if err := hashFile(h, f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}
