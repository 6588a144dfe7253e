package osimage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Layout of the disk, in 512-byte sectors: partitions start on MiB
// boundaries, and a MiB at the end leaves room for the backup GPT.
const (
	sector     = 512
	mib        = 1 << 20
	biosStart  = mib
	BIOSSize   = mib     // BIOS-BOOT, as CoreOS's
	ESPSize    = 8 * mib // EFI-SYSTEM: FAT16 of one-sector clusters
	bootSlack  = 6 * mib // free space in boot beyond its files (ext4 metadata, journal, the Ignition)
	RootSize   = 4 * mib // root: an ext4 holding /etc/os-release
	tailSize   = mib
	espStart   = biosStart + BIOSSize
	bootStart  = espStart + ESPSize
	blockBytes = 1024 // ext4 block size of boot and root
)

// sourceDate is the timestamp mtools gives the ESP's files and
// directories.
const sourceDate = "1700000000"

// bootSize is the boot partition's size for files of n bytes.
func bootSize(n int64) int64 { return (n + bootSlack + mib - 1) / mib * mib }

// diskInputs are what makeDisk puts on the disk.
type diskInputs struct {
	grub string // EFI/BOOT/BOOTX64.EFI
	core string // GRUB's core.img for BIOS-BOOT
	boot string // directory: the boot file system's files
	root string // directory: the root file system's files
	seed string // makes the GUIDs, UUIDs and the FAT serial number
}

// makeDisk writes the raw disk image: GPT (sgdisk) with BIOS-BOOT (GRUB's
// core.img, boot.img in the protective MBR), EFI-SYSTEM (mformat, mmd, mcopy at the partition's offset) holding grub
// as EFI/BOOT/BOOTX64.EFI, boot and root (mkfs.ext4 -d at the partition's
// offset, labelled like the partitions).
func makeDisk(ctx context.Context, out string, in diskInputs) error {
	n, err := treeSize(in.boot)
	if err != nil {
		return err
	}
	boot := bootSize(n)
	rootStart := bootStart + boot
	total := rootStart + RootSize + tailSize
	if err := sparseFile(out, total); err != nil {
		return err
	}
	type part struct {
		name, typ     string
		start, length int64
	}
	parts := []part{{BIOSBootName, "EF02", biosStart, BIOSSize}, {ESPName, "EF00", espStart, ESPSize},
		{BootName, "8300", bootStart, boot}, {RootName, "8300", rootStart, RootSize}}
	sg := []string{"-o", "-U", guid(in.seed, "disk")}
	for i, p := range parts {
		n := i + 1
		sg = append(sg, "-n", fmt.Sprintf("%d:%d:+%dK", n, p.start/sector, p.length/1024), "-t", fmt.Sprintf("%d:%s", n, p.typ),
			"-c", fmt.Sprintf("%d:%s", n, p.name), "-u", fmt.Sprintf("%d:%s", n, guid(in.seed, p.name)))
	}
	if err := run(ctx, nil, "sgdisk", append(sg, out)...); err != nil {
		return err
	}
	if err := installGrubBIOS(out, in.core, biosStart, BIOSSize); err != nil {
		return err
	}
	if err := makeESP(ctx, out, in); err != nil {
		return err
	}
	if err := makeExt4(ctx, out, BootName, in.boot, bootStart, boot, guid(in.seed, "fs-boot")); err != nil {
		return err
	}
	return makeExt4(ctx, out, RootName, in.root, rootStart, RootSize, guid(in.seed, "fs-root"))
}

func sparseFile(name string, size int64) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return nil
}

// makeESP formats EFI-SYSTEM (label EFI-SYSTEM, as CoreOS's) and copies
// GRUB in as the removable-media boot path.
func makeESP(ctx context.Context, out string, in diskInputs) error {
	img := fmt.Sprintf("%s@@%d", out, espStart)
	env := []string{"SOURCE_DATE_EPOCH=" + sourceDate, "MTOOLS_SKIP_CHECK=1"}
	steps := [][]string{
		{"mformat", "-i", img, "-T", fmt.Sprint(ESPSize / sector), "-H", fmt.Sprint(espStart / sector),
			"-h", "64", "-s", "32", "-c", "1", "-N", serial(in.seed), "-v", "EFI-SYSTEM", "::"},
		{"mmd", "-i", img, "::EFI", "::EFI/BOOT"},
		{"mcopy", "-i", img, in.grub, "::EFI/BOOT/BOOTX64.EFI"},
	}
	for _, s := range steps {
		if err := run(ctx, env, s[0], s[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// makeExt4 makes an ext4 labelled label from dir's files in [off,
// off+size) of the disk file out, without mounting (mkfs.ext4 -d).
func makeExt4(ctx context.Context, out, label, dir string, off, size int64, uuid string) error {
	return run(ctx, []string{"E2FSPROGS_FAKE_TIME=" + sourceDate}, "mkfs.ext4", "-q", "-F", "-L", label, "-U", uuid,
		"-b", fmt.Sprint(blockBytes), "-N", "256", "-J", "size=1", "-m", "0", "-E", fmt.Sprintf("offset=%d,root_owner=0:0", off), "-d", dir,
		out, fmt.Sprintf("%dk", size/1024))
}

// treeSize is the bytes of the regular files under dir.
func treeSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return n, nil
}

func run(ctx context.Context, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %s: %w: %s", ErrBuild, name, err, bytes.TrimSpace(msg))
	}
	return nil
}

// guid derives a GUID (variant and version bits set as for a random one)
// from seed and what it names.
func guid(seed, what string) string {
	h := sha256.Sum256([]byte(seed + "\n" + what))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// serial is the FAT volume serial number derived from seed.
func serial(seed string) string {
	h := sha256.Sum256([]byte(seed + "\nserial"))
	return fmt.Sprintf("%x", h[0:4])
}
