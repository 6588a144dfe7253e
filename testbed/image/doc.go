// Package image builds the testbed's boot image: a Debian kernel and a small
// busybox initrd whose /init loads the virtio network drivers, takes a DHCP
// lease with udhcpc, prints that lease and the /config.ign it was given on
// the serial console, and powers the machine off.
//
// rackbootd appends a cpio holding config.ign to the initrd it serves, so
// the file lands at /config.ign: what the VM prints is exactly what rackboot
// gave that machine. ParseLease and ParseIgnition read those reports back
// from a console log.
//
// BuildDiscovery (and BuildDiscoveryFromSource, which first compiles
// rackboot-agent and Ignition with BuildAgent and BuildIgnition) makes the
// discovery image instead: the same kernel and busybox with the real
// Ignition binary, rackboot-agent and small useradd/usermod/groupadd
// scripts; its /init applies /config.ign with Ignition's fetch-offline,
// fetch and files stages and then runs the agent until the machine is
// switched off. testbed/README.md says why and how.
//
// AppendLayer puts a test's own files (its /init, a binary) on top of a
// built initrd as one more cpio, as rackbootd appends config.ign.
//
// Build caches its results by content under a cache directory, so a second
// build with the same kernel package, busybox and scripts does no work.
package image
