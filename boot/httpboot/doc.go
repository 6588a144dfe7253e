// Package httpboot is the HTTP side of a network boot: the generic
// /boot.ipxe chain script, each MAC's iPXE script, kernel and per-host
// initrd under /boot/{mac}/, the iPXE binaries under /ipxe/ for UEFI
// HTTP-boot firmware, and each image set's OS disk image at
// /images/{image_set}/disk.img for installing hosts, and a CoreOS image
// set's live rootfs at /images/{image_set}/rootfs.img (coreos.live.rootfs_url). Kernels and initrds are served with Range, HEAD and
// strong ETags; the per-host initrd is streamed from the base file on disk.
package httpboot
