// Package httpboot is the HTTP side of a network boot: the generic
// /boot.ipxe chain script, each MAC's iPXE script, kernel and per-host
// initrd under /boot/{mac}/, and the iPXE binaries under /ipxe/ for UEFI
// HTTP-boot firmware. Kernels and initrds are served with Range, HEAD and
// strong ETags; the per-host initrd is streamed from the base file on disk.
package httpboot
