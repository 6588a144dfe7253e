package image

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rackboot/rackboot/testbed/internal/buildfs"
)

// ErrInitrd is returned when the initrd cannot be assembled.
var ErrInitrd = errors.New("image: initrd")

//go:embed files/init
var initTemplate string

//go:embed files/udhcpc.script
var udhcpcScript string

// initScript is /init with the module load order filled in.
func initScript(order []string) string {
	return strings.Replace(initTemplate, "@MODULES@", strings.Join(order, " "), 1)
}

// InitrdInputs are the host files that go into the initrd.
type InitrdInputs struct {
	Busybox string            // a statically linked busybox
	Modules map[string]string // module name -> path of its .ko
	Order   []string          // module load order; every name must be in Modules
}

// initrdDirs are created in the archive before any file.
var initrdDirs = []string{"bin", "dev", "etc", "lib", "lib/modules", "proc", "root", "run", "sbin", "sys", "tmp", "usr", "usr/bin", "usr/sbin"}

// WriteInitrd writes a gzip-compressed newc cpio holding busybox, /init, the
// udhcpc event script and the modules. The output depends only on the
// inputs' contents: timestamps and owners are zero, so it is reproducible.
func WriteInitrd(w io.Writer, in InitrdInputs) error {
	es := []buildfs.Entry{
		{Name: "bin/busybox", Mode: 0o755, Src: in.Busybox},
		{Name: "init", Mode: 0o755, Body: initScript(in.Order)},
		{Name: "etc/udhcpc.script", Mode: 0o755, Body: udhcpcScript},
	}
	for _, m := range in.Order {
		p, ok := in.Modules[m]
		if !ok {
			return fmt.Errorf("%w: module %s has no file", ErrInitrd, m)
		}
		es = append(es, buildfs.Entry{Name: "lib/modules/" + m + ".ko", Mode: 0o644, Src: p})
	}
	if err := buildfs.WriteArchive(w, initrdDirs, es); err != nil {
		return fmt.Errorf("%w: %w", ErrInitrd, err)
	}
	return nil
}
