package coreosimage

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/cavaliergopher/cpio"
)

// ErrBuild is returned when an artifact cannot be built.
var ErrBuild = errors.New("coreosimage: build")

// entry is one regular file of an archive: from the host (src) or literal
// (body).
type entry struct {
	name string // path in the archive, without a leading slash
	mode cpio.FileMode
	src  string
	body string
}

// fileMode is a permission as a cpio mode.
func fileMode(perm uint32) cpio.FileMode { return cpio.FileMode(perm) }

// dirsOf returns every directory extra and the entries need, parents first.
func dirsOf(extra []string, es []entry) []string {
	seen := map[string]bool{}
	var dirs []string
	add := func(d string) {
		for ; d != "." && d != "/" && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	for _, d := range extra {
		add(d)
	}
	for _, e := range es {
		add(path.Dir(e.name))
	}
	sort.Strings(dirs) // a parent sorts before its children
	return dirs
}

// writeArchive writes dirs and es as a gzip newc cpio. Timestamps and
// owners are zero, so the output depends only on the inputs' contents.
func writeArchive(w io.Writer, dirs []string, es []entry) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	cw := cpio.NewWriter(zw)
	for _, d := range dirs {
		if err := cw.WriteHeader(&cpio.Header{Name: d, Mode: cpio.TypeDir | 0o755, Links: 2}); err != nil {
			return fmt.Errorf("%w: %w", ErrBuild, err)
		}
	}
	for _, e := range es {
		if err := writeEntry(cw, e); err != nil {
			return err
		}
	}
	if err := cw.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return nil
}

func writeEntry(cw *cpio.Writer, e entry) error {
	var r io.Reader
	size := int64(len(e.body))
	if e.src != "" {
		f, err := os.Open(e.src)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrBuild, e.name, err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrBuild, e.name, err)
		}
		r, size = f, st.Size()
	} else {
		r = strings.NewReader(e.body)
	}
	if err := cw.WriteHeader(&cpio.Header{Name: e.name, Mode: cpio.TypeReg | e.mode, Size: size}); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrBuild, e.name, err)
	}
	if _, err := io.Copy(cw, r); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrBuild, e.name, err)
	}
	return nil
}

// writeArchiveFile is writeArchive into the file name.
func writeArchiveFile(name string, dirs []string, es []entry) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := writeArchive(f, dirs, es); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return nil
}
