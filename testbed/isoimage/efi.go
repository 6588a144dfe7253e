package isoimage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// efiImage builds GRUB for x86-64 UEFI with grub-mkstandalone (every module
// on its memdisk: with a subset, "search" stops at the file systems it
// cannot load) and puts it
// as EFI/BOOT/BOOTX64.EFI into a FAT image at out, the El Torito EFI image.
func efiImage(ctx context.Context, stage, out string) error {
	embedded := filepath.Join(stage, "grub-embedded.cfg")
	if err := writeFile(embedded, []byte(grubEmbedded)); err != nil {
		return err
	}
	efi := filepath.Join(stage, "BOOTX64.EFI")
	err := run(ctx, "grub-mkstandalone", "-O", "x86_64-efi", "-d", GrubEFIDir, "-o", efi,
		"--locales=", "--fonts=", "--themes=",
		"boot/grub/grub.cfg="+embedded)
	if err != nil {
		return err
	}
	st, err := os.Stat(efi)
	if err != nil {
		return fmt.Errorf("isoimage: %w", err)
	}
	kib := st.Size()/1024 + 512 // FAT overhead and slack
	if err := run(ctx, "mkfs.vfat", "-C", "-n", "EFIBOOT", out, strconv.FormatInt(kib, 10)); err != nil {
		return err
	}
	if err := run(ctx, "mmd", "-i", out, "::/EFI", "::/EFI/BOOT"); err != nil {
		return err
	}
	return run(ctx, "mcopy", "-i", out, efi, "::/EFI/BOOT/BOOTX64.EFI")
}
