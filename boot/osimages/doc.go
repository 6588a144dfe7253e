// Package osimages turns an AgentServiceConfig's spec.osImages (upstream's
// list of {openshiftVersion, version, cpuArchitecture, url, rootFSUrl},
// url being the live ISO and rootFSUrl the live rootfs) into the files a
// CoreOS image set boots, the way an [[image_set]]'s live_iso and
// live_rootfs name them.
//
//   - Parse reads spec.osImages and checks each entry: an OpenShift
//     version, an architecture boot/coreos serves (x86_64, aarch64 and
//     their aliases; empty is x86_64), both URLs, one entry per version
//     and architecture.
//   - Name is the image set's name for an entry (ocp-<version>-<arch>).
//   - Fetcher.Resolve gives each entry's ISO and rootfs as local files:
//     an absolute path or file:// URL is used in place; an http(s) URL
//     (a mirror) is downloaded once into the fetcher's directory, under a
//     temporary name then renamed, and reused afterwards. The ISO must
//     hold the PXE kernel and initramfs (boot/coreos.CheckPXE).
//
// Errors name the entry and the URL without its credentials or query.
package osimages
