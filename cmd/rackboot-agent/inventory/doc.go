// Package inventory reads a Linux host's hardware the way
// assisted-installer-agent reports it: CPU, memory, disks, NICs, routes,
// system vendor, boot mode, TPM and GPUs, as an engine/models.Inventory.
//
// Everything comes from /proc, /sys, /dev and /etc through an fs.FS rooted
// at "/" and from a small Net interface (net.Interfaces in production), so
// the collector needs no cgo, no external commands and no root for most
// parts, and tests run it over fixture trees captured from QEMU VMs.
//
// Where upstream shells out (lscpu, dmidecode, ghw, ipmitool,
// systemd-detect-virt) this package reads the kernel's files directly and
// says in each function's comment what it reads instead.
package inventory
