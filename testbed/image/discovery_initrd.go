package image

import (
	_ "embed"
	"fmt"
	"io"
	"strings"

	"github.com/cavaliergopher/cpio"
)

//go:embed files/discovery-init
var discoveryInitTemplate string

// The account tools Ignition's files stage runs (busybox has none of them).
var (
	//go:embed files/useradd
	useraddScript string
	//go:embed files/usermod
	usermodScript string
	//go:embed files/groupadd
	groupaddScript string
)

// discoveryInit is the discovery /init with the module load order filled in.
func discoveryInit(order []string) string {
	return strings.Replace(discoveryInitTemplate, "@MODULES@", strings.Join(order, " "), 1)
}

// staticFile is a file whose contents are part of the image's source.
type staticFile struct {
	name string
	mode cpio.FileMode
	body string
}

// discoveryStatic are the discovery image's files other than binaries and
// modules: the account databases a distribution would ship (root and the
// users group), and the account tools.
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

// discoveryDirs are created in the discovery archive after initrdDirs.
var discoveryDirs = []string{"etc/rackboot", "home", "usr/local", "usr/local/bin", "var", "var/log"}

// DiscoveryInputs are the host files that go into the discovery initrd.
type DiscoveryInputs struct {
	InitrdInputs          // busybox and the modules /init loads, in order
	Extra        []string // further modules carried (in Modules) but loaded by name, e.g. efivarfs
	Binaries     DiscoveryBinaries
}

// WriteDiscoveryInitrd writes the discovery initrd as a gzip newc cpio. Like
// WriteInitrd, the output depends only on the inputs' contents.
func WriteDiscoveryInitrd(w io.Writer, in DiscoveryInputs) error {
	return writeArchive(w, func(cw *cpio.Writer) error { return discoveryEntries(cw, in) })
}

func discoveryEntries(cw *cpio.Writer, in DiscoveryInputs) error {
	for _, d := range append(append([]string(nil), initrdDirs...), discoveryDirs...) {
		if err := cw.WriteHeader(&cpio.Header{Name: d, Mode: cpio.TypeDir | 0o755, Links: 2}); err != nil {
			return fmt.Errorf("%w: %w", ErrInitrd, err)
		}
	}
	if err := addHostFile(cw, "bin/busybox", in.Busybox, 0o755); err != nil {
		return err
	}
	if err := addBytes(cw, "init", []byte(discoveryInit(in.Order)), 0o755); err != nil {
		return err
	}
	for _, f := range discoveryStatic() {
		if err := addBytes(cw, f.name, []byte(f.body), f.mode); err != nil {
			return err
		}
	}
	if err := addHostFile(cw, IgnitionPath, in.Binaries.Ignition, 0o755); err != nil {
		return err
	}
	if err := addHostFile(cw, AgentPath, in.Binaries.Agent, 0o755); err != nil {
		return err
	}
	return addModules(cw, in.Modules, append(append([]string(nil), in.Order...), in.Extra...))
}
