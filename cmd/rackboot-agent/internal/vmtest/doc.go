// Package vmtest is the QEMU set-up rackboot-agent's VM tests share
// (inventory's TestCollectInQEMU and steps' TestInstallInQEMU): the
// testbed/image kernel and busybox initrd, a /init that loads the virtio
// drivers, waits for the NIC and a disk and gives eth0 the test address,
// and an initrd with that /init and a statically built Go binary on top.
// The tests start QEMU themselves: their VMs differ.
package vmtest
