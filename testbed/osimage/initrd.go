package osimage

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cavaliergopher/cpio"

	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/internal/buildfs"
)

//go:embed files/init
var initTemplate string

// Where the OS initrd puts its programs.
const (
	IgnitionPath = image.IgnitionPath // usr/bin/ignition
	CurlPath     = "usr/bin/curl"
	BusyboxPath  = "bin/busybox"
)

// ext4Modules are the modules the OS loads after image.Modules() to mount
// the boot file system, in load order (jbd2 and ext4 ask the crypto API
// for crc32c, which nothing would load for them).
var ext4Modules = []string{"crc32c_generic", "crc16", "mbcache", "jbd2", "ext4"}

// osModules are the kernel modules of the OS initrd, in load order.
func osModules() []string { return append(image.Modules(), ext4Modules...) }

// initScript is /init with the module order, the boot file system's label,
// the stamp's and the config's paths filled in.
func initScript() string {
	return strings.NewReplacer(
		"@MODULES@", strings.Join(osModules(), " "),
		"@BOOT_LABEL@", BootName,
		"@STAMP@", StampName,
		"@CONFIG@", ConfigPath,
	).Replace(initTemplate)
}

// sharedLibs runs ldd on bin and returns the libraries it links, the
// dynamic loader included, with their symlinks resolved. curl is dynamic:
// no library at all is an error.
func sharedLibs(ctx context.Context, bin string) ([]buildfs.Lib, error) {
	libs, err := buildfs.SharedLibs(ctx, bin)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if len(libs) == 0 {
		return nil, fmt.Errorf("%w: ldd listed no libraries", ErrBuild)
	}
	return libs, nil
}

// initrdInputs are the host files that go into the OS initrd.
type initrdInputs struct {
	busybox, ignition, curl string
	libs                    []buildfs.Lib
	modules                 map[string]string // name -> .ko
}

// extraDirs are created in the initrd besides the parents of its files.
var extraDirs = []string{"boot", "dev", "home", "proc", "root", "run", "sbin", "sys", "tmp", "var", "var/log",
	"etc/systemd/system", "usr/local/bin", "usr/local/sbin"}

func (in initrdInputs) entries() ([]buildfs.Entry, error) {
	es := []buildfs.Entry{
		{Name: BusyboxPath, Mode: 0o755, Src: in.busybox},
		{Name: "init", Mode: 0o755, Body: initScript()},
		{Name: IgnitionPath, Mode: 0o755, Src: in.ignition},
		{Name: CurlPath, Mode: 0o755, Src: in.curl},
	}
	for _, f := range image.DiscoveryFiles() {
		es = append(es, buildfs.Entry{Name: f.Name, Mode: cpio.FileMode(f.Mode), Body: f.Body})
	}
	for _, l := range in.libs {
		es = append(es, buildfs.Entry{Name: l.Name, Mode: 0o755, Src: l.Src})
	}
	for _, m := range osModules() {
		ko, ok := in.modules[m]
		if !ok {
			return nil, fmt.Errorf("%w: module %s has no file", ErrBuild, m)
		}
		es = append(es, buildfs.Entry{Name: "lib/modules/" + m + ".ko", Mode: 0o644, Src: ko})
	}
	return es, nil
}

// writeInitrdFile writes the OS initrd, a gzip newc cpio, to name. The
// output depends only on the inputs' contents.
func writeInitrdFile(name string, in initrdInputs) error {
	es, err := in.entries()
	if err != nil {
		return err
	}
	if err := buildfs.WriteArchiveFile(name, buildfs.DirsOf(extraDirs, es), es); err != nil {
		return fmt.Errorf("%w: initrd: %w", ErrBuild, err)
	}
	return nil
}

// writeInitrd is writeInitrdFile into w.
func writeInitrd(w io.Writer, in initrdInputs) error {
	es, err := in.entries()
	if err != nil {
		return err
	}
	if err := buildfs.WriteArchive(w, buildfs.DirsOf(extraDirs, es), es); err != nil {
		return fmt.Errorf("%w: initrd: %w", ErrBuild, err)
	}
	return nil
}

func lookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return filepath.EvalSymlinks(p)
}
