// Package isoimage builds the testbed's bootable discovery base ISO with
// Debian's tools, the way a CoreOS live ISO is laid out:
//
//	/images/vmlinuz        the kernel
//	/images/initrd.img     the discovery initrd
//	/images/ignition.img   the Ignition embed area: EmbedAreaSize zero bytes,
//	                       loaded by the bootloader as a second initrd
//	/coreos/igninfo.json   {"file": "images/ignition.img"}
//	/coreos/kargs.json     the kernel argument areas of both bootloader configs
//	/isolinux/...          BIOS: isolinux (El Torito, no emulation, hybrid MBR)
//	/boot/grub/grub.cfg    UEFI: GRUB from an El Torito EFI image (images/efiboot.img)
//
// boot/iso overwrites the embed area (and the kargs areas) per request; the
// kernel unpacks the zero-padded gzip cpio there on top of the initrd, so
// /config.ign appears in the initramfs.
//
// Tools: xorriso, isolinux, syslinux-common (BIOS), grub-efi-amd64-bin and
// grub-common (grub-mkstandalone), dosfstools (mkfs.vfat) and mtools (the
// EFI image). Build caches the ISO by the content of its inputs.
package isoimage
