package osimage

import (
	"archive/tar"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// GrubPCDir holds Debian's GRUB for BIOS (grub-pc-bin): boot.img and the
// i386-pc modules.
const GrubPCDir = "/usr/lib/grub/i386-pc"

// Offsets GRUB's own installer (grub-bios-setup) fills in: in boot.img,
// the LBA of core.img's first sector and the boot drive check (made two
// NOPs for a hard disk); at the end of core.img's first sector
// (diskboot.img), the block list of the rest of core.img.
const (
	bootImgKernelSector = 0x5c
	bootImgDriveCheck   = 0x66
	bootImgCodeEnd      = 0x1b8 // the MBR's disk signature and partition table follow
	diskbootBlocklist   = sector - 12
)

// makeGrubBIOS writes core.img for BIOS-BOOT: GRUB for i386-pc
// (grub-mkimage) with grub.cfg in its memdisk, as grub-mkstandalone does
// for EFI.
func makeGrubBIOS(ctx context.Context, dir, out string) error {
	mem := filepath.Join(dir, "memdisk.tar")
	if err := writeMemdisk(mem); err != nil {
		return err
	}
	mods := append([]string{"biosdisk", "memdisk", "tar"}, grubModules...)
	mods = deleteString(mods, "efi_gop", "all_video")
	return run(ctx, nil, "grub-mkimage", append([]string{"-O", "i386-pc", "-d", GrubPCDir, "-o", out,
		"-p", "(memdisk)/boot/grub", "-m", mem}, mods...)...)
}

// writeMemdisk writes a tar holding boot/grub/grub.cfg.
func writeMemdisk(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	tw := tar.NewWriter(f)
	for _, d := range []string{"boot/", "boot/grub/"} {
		if err := tw.WriteHeader(&tar.Header{Name: d, Typeflag: tar.TypeDir, Mode: 0o755}); err != nil {
			f.Close()
			return fmt.Errorf("%w: memdisk: %w", ErrBuild, err)
		}
	}
	err = tw.WriteHeader(&tar.Header{Name: "boot/grub/grub.cfg", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(grubCfg))})
	if err == nil {
		_, err = tw.Write([]byte(grubCfg))
	}
	if err == nil {
		err = tw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%w: memdisk: %w", ErrBuild, err)
	}
	return nil
}

func deleteString(list []string, drop ...string) []string {
	var out []string
	for _, s := range list {
		if !strings.Contains(" "+strings.Join(drop, " ")+" ", " "+s+" ") {
			out = append(out, s)
		}
	}
	return out
}

// installGrubBIOS does what grub-bios-setup does on a GPT disk, on the
// disk file out: core.img into BIOS-BOOT (at start, size bytes) with its
// block list filled in, and boot.img as the MBR's code, pointing at
// core.img, the protective MBR's partition table kept.
func installGrubBIOS(out, core string, start, size int64) error {
	img, err := os.ReadFile(core)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	boot, err := os.ReadFile(filepath.Join(GrubPCDir, "boot.img"))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	n := (int64(len(img)) + sector - 1) / sector
	if n < 2 || n*sector > size || len(boot) != sector {
		return fmt.Errorf("%w: core.img of %d bytes does not fit BIOS-BOOT (%d bytes), or boot.img is %d bytes", ErrBuild, len(img), size, len(boot))
	}
	img = append(img, make([]byte, n*sector-int64(len(img)))...)
	le := binary.LittleEndian
	le.PutUint64(img[diskbootBlocklist:], uint64(start/sector+1))
	le.PutUint16(img[diskbootBlocklist+8:], uint16(n-1))
	f, err := os.OpenFile(out, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	defer f.Close()
	mbr := make([]byte, sector)
	if _, err := f.ReadAt(mbr, 0); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	copy(mbr[:bootImgCodeEnd], boot[:bootImgCodeEnd])
	le.PutUint64(mbr[bootImgKernelSector:], uint64(start/sector))
	mbr[bootImgDriveCheck], mbr[bootImgDriveCheck+1] = 0x90, 0x90
	if _, err := f.WriteAt(img, start); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if _, err := f.WriteAt(mbr, 0); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return nil
}
