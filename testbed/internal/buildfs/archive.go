package buildfs

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/cavaliergopher/cpio"
)

// Entry is one regular file of an archive: from the host (Src) or literal
// (Body).
type Entry struct {
	Name string        // path in the archive, without a leading slash
	Mode cpio.FileMode // permission bits
	Src  string
	Body string
}

// DirsOf returns every directory extra and the entries need, parents
// first.
func DirsOf(extra []string, es []Entry) []string {
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
		add(path.Dir(e.Name))
	}
	sort.Strings(dirs) // a parent sorts before its children
	return dirs
}

// WriteArchive writes dirs (in order) and then es as a gzip newc cpio.
// Timestamps and owners are zero, so the output depends only on the
// inputs' contents.
func WriteArchive(w io.Writer, dirs []string, es []Entry) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	cw := cpio.NewWriter(zw)
	for _, d := range dirs {
		if err := cw.WriteHeader(&cpio.Header{Name: d, Mode: cpio.TypeDir | 0o755, Links: 2}); err != nil {
			return err
		}
	}
	for _, e := range es {
		if err := writeEntry(cw, e); err != nil {
			return err
		}
	}
	if err := cw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func writeEntry(cw *cpio.Writer, e Entry) error {
	var r io.Reader = strings.NewReader(e.Body)
	size := int64(len(e.Body))
	if e.Src != "" {
		f, err := os.Open(e.Src)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		r, size = f, st.Size()
	}
	if err := cw.WriteHeader(&cpio.Header{Name: e.Name, Mode: cpio.TypeReg | e.Mode.Perm(), Size: size}); err != nil {
		return fmt.Errorf("%s: %w", e.Name, err)
	}
	if _, err := io.Copy(cw, r); err != nil {
		return fmt.Errorf("%s: %w", e.Name, err)
	}
	return nil
}

// WriteArchiveFile is WriteArchive into the file name.
func WriteArchiveFile(name string, dirs []string, es []Entry) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := WriteArchive(f, dirs, es); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
