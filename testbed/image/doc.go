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
// BuildIgnition compiles the real Ignition binary (static) that the
// testbed's other images carry; DiscoveryFiles are the account databases,
// udhcpc script and useradd/usermod/groupadd scripts such an image needs,
// and RunIgnition runs Ignition's stages on a root as they do. The
// discovery image is CoreOS-shaped and has no rackboot-agent built in
// (testbed/coreosimage); testbed/README.md says why and how.
//
// AppendLayer puts a test's own files (its /init, a binary) on top of a
// built initrd as one more cpio, as rackbootd appends config.ign.
//
// Build caches its results by content under a cache directory, so a second
// build with the same kernel package, busybox and scripts does no work.
package image
