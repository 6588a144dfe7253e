// Package osimage builds the testbed's installable OS disk image: the raw
// disk file rackboot's installer streams to a host's disk, and that host
// then boots under OVMF.
//
// The image is made without mounting anything: a GPT (sgdisk) with
//
//  1. an EFI system partition, FAT32 written with mtools, holding
//     EFI/BOOT/BOOTX64.EFI: a unified kernel image made with objcopy from
//     systemd-boot's stub, Debian's kernel (the one testbed/image uses), the
//     kernel command line and the OS initrd;
//  2. the partition named "ignition" (models.IgnitionPartitionName), 8 MiB
//     of zeros, where the installer writes the host's Ignition config;
//  3. the partition named "rackboot-state", 1 MiB of zeros, where the OS
//     records that its first boot is done.
//
// The OS initrd holds busybox, the real Ignition binary, the real curl with
// the shared libraries it links, and an /init (files/init) that prints
// RACKBOOT-OS-BOOT on every boot, takes a DHCP lease and, on the first boot
// only, applies the Ignition config of the "ignition" partition with
// Ignition's fetch-offline, fetch and files stages (as the discovery image
// does) and runs the ExecStart commands of the units the config enabled,
// such as rackboot-firstboot.service. When every unit succeeded it writes
// the done flag into "rackboot-state", so later boots skip all of that. It
// prints RACKBOOT-OS-READY and stays up. The root file system is the
// initrd: files Ignition wrote are gone after a reboot, the flag is not.
//
// Build caches images by content under the cache directory, like
// testbed/image; ReadGPT, FindPartition and WriteIgnition read and fill a
// built image's partitions.
package osimage
