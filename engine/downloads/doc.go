// Package downloads is what the domain hands a host, a BMC or a user to
// download, with no HTTP in it: the documents and the URLs to them, each
// URL with the token that scopes it.
//
// An infra-env's: the discovery Ignition (with a fresh agent token, its
// pull secret, static network and, for an image set without the agent
// built in, the remote agent), its iPXE script (it chains the boot
// server's per-MAC script; with boot-order-control and the MAC of a host
// that wrote its disk, it exits so the machine boots its disk), the image
// URL of the REST API (the ISO server's presigned discovery ISO, else the
// iPXE script's URL with an expiring image token) and the image of the
// Kubernetes-compatible API's InfraEnv status (the iPXE script's URL with
// an agent token, the PXE kernel, initrd and rootfs, the discovery ISO).
//
// A host's: the install step (its arguments: disk, role, the disk image
// on the boot server, the install Ignition's URL on the REST API, the
// disks to wipe), handed out once as hosts.Service.InstallStepSent moves
// the host on; and its install Ignition (its role's config with its
// hostname, static network keyfiles, Ignition override and a first-boot
// report carrying a host-scoped token), only while it installs.
//
// The front doors (engine/api's handlers, engine/acm's InfraEnv
// controller) decode, call a Service and encode. Refusals are
// engine/hosts' (hosts.ErrInvalid, ErrNotFound, ErrConflict). A Service
// writes only through engine/hosts (the install step's hand-out).
package downloads
