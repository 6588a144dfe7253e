// Package coreos turns stock CoreOS (RHCOS, FCOS) live artifacts into what
// rackboot boots: the live ISO and the live rootfs, named directly (the
// AgentServiceConfig osImages pair) or through a stream metadata document
// (stream.json, read with github.com/coreos/stream-metadata-go) whose
// artifacts sit in a local mirror directory.
//
//   - FromStream finds an architecture's metal artifacts (iso, pxe rootfs,
//     raw.xz) in the mirror by the base name of each location, with the
//     sha256 the stream gives.
//   - Verify checks each file against its expected sha256 (ErrChecksum).
//   - ExtractPXE copies images/pxeboot/vmlinuz and images/pxeboot/initrd.img
//     out of the live ISO, as assisted-image-service does, into a cache
//     directory keyed by the ISO's identity, once.
//   - LiveArgs renders the live kernel arguments of seed 001's iPXE
//     script: coreos.live.rootfs_url, ignition.firstboot,
//     ignition.platform.id=metal, then the extra arguments.
//
// The package reads files only; it never downloads.
package coreos
