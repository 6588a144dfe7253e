// Package iso serves a live ISO with per-request customisation, without
// copying the ISO: the base file is read in place through ReadAt, and only
// the customised areas are held in memory.
//
// A base ISO (as CoreOS and the testbed's discovery ISO are built) reserves
// a zero-filled Ignition embed area: a file, normally /images/ignition.img,
// that the bootloader loads as a second initrd. /coreos/igninfo.json names
// it ({"file", "offset", "length"}; offset and length optional). Inspect
// parses just enough ISO9660 (primary volume descriptor, directory records)
// to find that area's byte range, and the kernel argument areas that
// /coreos/kargs.json describes, if any.
//
// Base.Overlay presents the base with the embed area replaced by a gzip'd
// newc cpio holding config.ign (the same archive as the per-host initrd
// appendix of boot/initrd), zero-padded to the area's length. gzip rather
// than upstream's xz: the Linux initrd loader accepts both, Go's standard
// library writes gzip, and the area has room to spare for a discovery
// Ignition config; the kernel also skips the zero padding after it.
//
// An Image is an io.ReaderAt with a size and a strong ETag (base file
// identity + hash of the customised bytes); Image.ServeHTTP answers GET and
// HEAD with Range support through http.ServeContent, and
// Base.ServeOverlay does both steps for one request. Building an Image
// costs one gzip of the config and one allocation of the area (256 KiB for
// the testbed ISO); a server answering many Range requests for the same
// host may keep the Image and reuse it while the config is unchanged.
// The embed area is replaced whole: whatever the base held there is not
// merged (upstream coreos-installer keeps existing files).
package iso
