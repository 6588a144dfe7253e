// Package coreosimage builds the testbed's CoreOS-shaped live image set
// from Debian parts and publishes it, with the metal image of
// testbed/osimage, as a CoreOS stream mirror: a directory holding
// stream.json (written with github.com/coreos/stream-metadata-go's types)
// and the artifacts it names for x86_64, each with its sha256:
//
//	metal iso disk       the live ISO (testbed/isoimage.BuildLive):
//	                     images/pxeboot/{vmlinuz,initrd.img,rootfs.img},
//	                     the Ignition embed area images/ignition.img with
//	                     coreos/igninfo.json, coreos/kargs.json, and
//	                     coreos.liveiso=<label> ignition.firstboot
//	                     ignition.platform.id=metal on its command line
//	metal pxe kernel     Debian's kernel
//	metal pxe initramfs  the live initramfs (busybox, the real Ignition,
//	                     modules, files/live-init as /init); no rackboot-agent
//	metal pxe rootfs     the live rootfs: a gzip cpio of the userland the
//	                     agent's steps use (curl, xz and their libraries)
//	metal raw.xz disk    xz of osimage's raw disk, with uncompressed-sha256
//
// The live initramfs takes its root from coreos.live.rootfs_url (PXE) or
// from the ISO labelled coreos.liveiso, and refuses a rootfs whose sha256
// is not the one it carries (files/live-rootfs), as CoreOS's does. It
// copies /config.ign to /usr/lib/ignition/user.ign, runs Ignition's
// fetch-offline, fetch and files stages with -platform metal, and runs the
// ExecStart of the units the config enabled: rackboot-agent arrives as
// Ignition's remote file, exactly as on a stock RHCOS live image. A
// testbed rackbootd takes the mirror with coreos_stream, the path a
// user's RHCOS mirror takes (ImageSetTOML).
//
// Everything is cached by content under the cache directory.
package coreosimage
