package image

import (
	_ "embed"

	"github.com/cavaliergopher/cpio"
)

// The account tools Ignition's files stage runs (busybox has none of them).
var (
	//go:embed files/useradd
	useraddScript string
	//go:embed files/usermod
	usermodScript string
	//go:embed files/groupadd
	groupaddScript string
)

// staticFile is a file whose contents are part of the image's source.
type staticFile struct {
	name string
	mode cpio.FileMode
	body string
}

// discoveryStatic are the files an image that applies Ignition carries
// besides binaries and modules (DiscoveryFiles): the account databases a
// distribution would ship (root and the users group), the udhcpc event
// script and the account tools.
func discoveryStatic() []staticFile {
	return []staticFile{
		{"etc/passwd", 0o644, "root:x:0:0:root:/root:/bin/sh\n"},
		{"etc/shadow", 0o600, "root:*:19000:0:99999:7:::\n"},
		{"etc/group", 0o644, "root:x:0:\nusers:x:100:\n"},
		{"etc/nsswitch.conf", 0o644, "passwd: files\ngroup: files\nshadow: files\nhosts: files dns\n"},
		{"etc/udhcpc.script", 0o755, udhcpcScript},
		{"usr/sbin/useradd", 0o755, useraddScript},
		{"usr/sbin/usermod", 0o755, usermodScript},
		{"usr/sbin/groupadd", 0o755, groupaddScript},
	}
}

// IgnitionPath is where an image that applies Ignition puts its binary
// (testbed/osimage, testbed/coreosimage).
const IgnitionPath = "usr/bin/ignition"
