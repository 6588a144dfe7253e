package osimage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
)

// Layout of the disk, in 512-byte sectors: partitions start on MiB
// boundaries, and a MiB at the end leaves room for the backup GPT.
const (
	sector       = 512
	mib          = 1 << 20
	espStart     = mib
	minESP       = 40 * mib // FAT32 needs >= 65525 clusters (of one sector here)
	espSlack     = 4 * mib  // free space in the ESP beyond the UKI
	IgnitionSize = 8 * mib  // size of the ignition partition
	StateSize    = 1 * mib  // size of the rackboot-state partition
	tailSize     = mib
)

// sourceDate is the timestamp mtools gives the ESP's files and
// directories, so the image's bytes depend only on its inputs.
const sourceDate = "1700000000"

// espSize is the ESP's size for a UKI of n bytes.
func espSize(n int64) int64 {
	s := (n + espSlack + mib - 1) / mib * mib
	return max(s, minESP)
}

// makeDisk writes the raw disk image: GPT (sgdisk), the ESP (mformat,
// mmd, mcopy at the partition's offset) holding uki as
// EFI/BOOT/BOOTX64.EFI, and the zeroed ignition and state partitions.
// seed makes the disk's GUIDs and the FAT serial number.
func makeDisk(ctx context.Context, out, uki, seed string) error {
	st, err := os.Stat(uki)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	esp := espSize(st.Size())
	total := espStart + esp + IgnitionSize + StateSize + tailSize
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := f.Truncate(total); err != nil {
		f.Close()
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	sg := []string{"-o", "-U", guid(seed, "disk"),
		"-n", fmt.Sprintf("1:%d:+%dK", espStart/sector, esp/1024), "-t", "1:EF00", "-c", "1:" + ESPName, "-u", "1:" + guid(seed, ESPName),
		"-n", fmt.Sprintf("2:0:+%dK", IgnitionSize/1024), "-t", "2:8300", "-c", "2:" + IgnitionName, "-u", "2:" + guid(seed, IgnitionName),
		"-n", fmt.Sprintf("3:0:+%dK", StateSize/1024), "-t", "3:8300", "-c", "3:" + StateName, "-u", "3:" + guid(seed, StateName),
		out}
	if err := run(ctx, nil, "sgdisk", sg...); err != nil {
		return err
	}
	img := fmt.Sprintf("%s@@%d", out, espStart)
	env := []string{"SOURCE_DATE_EPOCH=" + sourceDate, "MTOOLS_SKIP_CHECK=1"}
	steps := [][]string{
		{"mformat", "-i", img, "-F", "-T", fmt.Sprint(esp / sector), "-H", fmt.Sprint(espStart / sector),
			"-h", "64", "-s", "32", "-c", "1", "-N", serial(seed), "-v", "ESP", "::"},
		{"mmd", "-i", img, "::EFI", "::EFI/BOOT"},
		{"mcopy", "-i", img, uki, "::EFI/BOOT/BOOTX64.EFI"},
	}
	for _, s := range steps {
		if err := run(ctx, env, s[0], s[1:]...); err != nil {
			return err
		}
	}
	return nil
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
