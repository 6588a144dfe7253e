package image

import (
	"compress/gzip"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cavaliergopher/cpio"
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
	return writeArchive(w, func(cw *cpio.Writer) error { return writeEntries(cw, in) })
}

// writeArchive writes the entries of fill as a gzip newc cpio.
func writeArchive(w io.Writer, fill func(*cpio.Writer) error) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInitrd, err)
	}
	cw := cpio.NewWriter(zw)
	if err := fill(cw); err != nil {
		return err
	}
	if err := cw.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrInitrd, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrInitrd, err)
	}
	return nil
}

func writeEntries(cw *cpio.Writer, in InitrdInputs) error {
	for _, d := range initrdDirs {
		if err := cw.WriteHeader(&cpio.Header{Name: d, Mode: cpio.TypeDir | 0o755, Links: 2}); err != nil {
			return fmt.Errorf("%w: %w", ErrInitrd, err)
		}
	}
	if err := addHostFile(cw, "bin/busybox", in.Busybox, 0o755); err != nil {
		return err
	}
	if err := addBytes(cw, "init", []byte(initScript(in.Order)), 0o755); err != nil {
		return err
	}
	if err := addBytes(cw, "etc/udhcpc.script", []byte(udhcpcScript), 0o755); err != nil {
		return err
	}
	return addModules(cw, in.Modules, in.Order)
}

// addModules adds lib/modules/<name>.ko for each name, in order.
func addModules(cw *cpio.Writer, files map[string]string, names []string) error {
	for _, m := range names {
		p, ok := files[m]
		if !ok {
			return fmt.Errorf("%w: module %s has no file", ErrInitrd, m)
		}
		if err := addHostFile(cw, "lib/modules/"+m+".ko", p, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func addBytes(cw *cpio.Writer, name string, data []byte, perm cpio.FileMode) error {
	hdr := &cpio.Header{Name: name, Mode: cpio.TypeReg | perm, Size: int64(len(data))}
	if err := cw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInitrd, name, err)
	}
	if _, err := cw.Write(data); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInitrd, name, err)
	}
	return nil
}

func addHostFile(cw *cpio.Writer, name, src string, perm cpio.FileMode) error {
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInitrd, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInitrd, err)
	}
	hdr := &cpio.Header{Name: name, Mode: cpio.TypeReg | perm, Size: st.Size()}
	if err := cw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInitrd, name, err)
	}
	if _, err := io.Copy(cw, f); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInitrd, name, err)
	}
	return nil
}
