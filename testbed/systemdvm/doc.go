// Package systemdvm boots a Debian VM with systemd as PID 1, for the tests
// of rackboot's package and unit under the real systemd (make e2e-systemd,
// docs/systemd.md): what systemd-analyze cannot show offline, such as
// Type=notify readiness, reload, the watchdog, the journal and the
// package's install, upgrade, remove and purge.
//
// Build makes the root file system from Debian's archive with debootstrap
// (minbase, plus systemd, Debian's kernel and initramfs, and what the tests
// use inside) and packs it with mkfs.ext4 -d, without mounting; the result
// is cached by content under the testbed cache. Start boots it under QEMU
// (TCG, direct kernel boot, the root image as a snapshot so the cache stays
// clean, no network device), with a second, read-only disk of files (the
// .debs under test). The test drives the VM through a virtio-serial port
// that a small shell service in the image, rackboot-testrunner, serves: it
// runs each script sent and sends back its exit status and output.
package systemdvm
