// Package pxeserve serves an infra-env's PXE boot artifacts, as upstream's
// image service serves an InfraEnv's bootArtifacts: the kernel of its
// image set's boot profile and its initrd (the profile's base initrd
// followed by a cpio archive with the infra-env's discovery config.ign,
// boot/initrd), at <boot base>/images/<infra-env id>/<path token>/pxe/kernel
// and .../pxe/initrd. The path token (engine/auth) binds the URL to the
// infra-env and does not expire, as upstream's local-auth image URLs; a
// bad one is 403. BootArtifacts gives the URLs, and the live rootfs URL of
// a CoreOS image set (served by boot/httpboot).
package pxeserve
