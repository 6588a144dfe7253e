// Package osimage builds the testbed's installable OS disk image, shaped
// like a CoreOS metal image: the raw disk file rackboot's installer
// streams to a host's disk and finishes as coreos-installer does, and that
// host then boots under OVMF.
//
// The image is made without mounting anything: a GPT (sgdisk) with
// CoreOS's partitions, in CoreOS's order:
//
//  1. BIOS-BOOT, 1 MiB holding GRUB 2.06's core.img for i386-pc
//     (grub-mkimage, the same grub.cfg in its memdisk), with GRUB's
//     boot.img as the protective MBR's code, both filled in as
//     grub-bios-setup does (bios.go), so the image boots under SeaBIOS
//     too;
//  2. EFI-SYSTEM, FAT written with mtools, holding EFI/BOOT/BOOTX64.EFI:
//     GRUB 2.06 for x86_64-efi made with grub-mkstandalone, its
//     configuration (files/grub.cfg) baked in;
//  3. boot, an ext4 labelled boot (mkfs.ext4 -d) holding the first-boot
//     stamp ignition.firstboot (empty, as CoreOS ships it), one Boot
//     Loader Specification entry loader/entries/rackboot-1.conf (title,
//     version, options, linux, initrd, in ostree's order), Debian's kernel
//     as vmlinuz-VERSION and the OS initramfs as initramfs-VERSION.img;
//     the installer adds ignition/config.ign and appends kernel arguments
//     to the entry's options line;
//  4. root, an ext4 labelled root holding /etc/os-release.
//
// What stands in for CoreOS's GRUB with the blscfg module (which Debian's
// GRUB 2.06 does not have): grub.cfg finds the file system labelled boot
// (search --label), sets $ignition_firstboot to "ignition.firstboot" while
// the stamp is there (sourcing the stamp, as CoreOS's grub.cfg does), and
// takes the first entry of loader/entries: it defines GRUB functions named
// title, version and options and sources the entry, so that those lines
// record their arguments (options with $ignition_firstboot expanded); the
// entry's linux and initrd lines, GRUB commands, run with root on GRUB's
// memdisk and find nothing there (loading a kernel twice crashes GRUB
// 2.06's EFI loader). grub.cfg then loads /vmlinuz-VERSION and
// /initramfs-VERSION.img with the entry's options and boots. So the kernel
// gets the entry's options line as the installer left it; unlike blscfg,
// the entry's own linux and initrd paths are not read (they must be
// /vmlinuz-VERSION and /initramfs-VERSION.img), and only one entry is
// looked at.
//
// The OS initramfs holds busybox, the real Ignition binary, the real curl
// with the shared libraries it links, the virtio and ext4 modules, and an
// /init (files/init) that prints RACKBOOT-OS-BOOT and its command line
// (RACKBOOT-OS-CMDLINE) on every boot, mounts the file system labelled
// boot at /boot and takes a DHCP lease. When ignition.firstboot is on the
// command line it does what CoreOS's first boot does: it copies
// /boot/ignition/config.ign to /usr/lib/ignition/user.ign, runs the real
// Ignition with --platform=metal (whose provider has no config, so
// Ignition reads user.ign) through its fetch-offline, fetch and files
// stages, and runs the ExecStart commands of the units the config enabled,
// such as rackboot-firstboot.service. When every unit succeeded it removes
// the config and the stamp from /boot, so later boots (GRUB no longer adds
// ignition.firstboot) skip all of that; when one failed, the next boot
// runs the first boot again. It prints RACKBOOT-OS-READY and stays up. The
// root file system is the initramfs: files Ignition wrote are gone after a
// reboot, the removed stamp is not.
//
// Build caches images by content under the cache directory, like
// testbed/image. ReadGPT and FindPartition read a built image's partition
// table; ReadBootFile, WriteBootFile and WriteIgnition read and write its
// boot file system with debugfs, for tests that install a disk without
// the installer.
package osimage
