package initrd

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// Initrd is one host's initrd: the base file followed by its appendix. It
// holds the base file open; Close releases it.
type Initrd struct {
	f       *os.File
	base    int64 // size of the base file
	all     *concat
	etag    string
	modTime time.Time
}

// Open opens the base initrd at path and lays appendix after it, preceded by
// the zero bytes (at most 3) that start the appendix on a 4-byte boundary.
func Open(path string, appendix []byte) (*Initrd, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening base initrd: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("base initrd: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("base initrd %s is not a regular file", path)
	}
	size := fi.Size()
	all := newConcat(part{r: f, size: size}, zeros(pad4(size)), part{r: bytesReaderAt(appendix), size: int64(len(appendix))})
	return &Initrd{f: f, base: size, all: all, etag: ETag(FileIdentity(fi), appendix), modTime: fi.ModTime()}, nil
}

// Size is the length of the whole initrd in bytes.
func (i *Initrd) Size() int64 { return i.all.size }

// ReadAt implements io.ReaderAt over the whole initrd.
func (i *Initrd) ReadAt(p []byte, off int64) (int, error) { return i.all.ReadAt(p, off) }

// ReadSeeker returns a fresh reader over the whole initrd, for
// http.ServeContent.
func (i *Initrd) ReadSeeker() io.ReadSeeker { return io.NewSectionReader(i.all, 0, i.all.size) }

// ETag is a strong entity tag, quoted, derived from the base file's identity
// (device, inode, size, modification time) and the appendix's bytes.
func (i *Initrd) ETag() string { return i.etag }

// BaseModTime is the base file's modification time.
func (i *Initrd) BaseModTime() time.Time { return i.modTime }

// Close closes the base file.
func (i *Initrd) Close() error { return i.f.Close() }

// FileIdentity encodes what tells one version of a file from another without
// reading it: device, inode, size and modification time in nanoseconds.
func FileIdentity(fi os.FileInfo) []byte {
	var dev, ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		dev, ino = uint64(st.Dev), st.Ino
	}
	b := make([]byte, 0, 32)
	b = binary.BigEndian.AppendUint64(b, dev)
	b = binary.BigEndian.AppendUint64(b, ino)
	b = binary.BigEndian.AppendUint64(b, uint64(fi.Size()))
	return binary.BigEndian.AppendUint64(b, uint64(fi.ModTime().UnixNano()))
}

// ETag returns a strong, quoted entity tag for the given pieces.
func ETag(pieces ...[]byte) string {
	h := sha256.New()
	for _, p := range pieces {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	return `"` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`
}

// WriteRange writes the n bytes of the initrd that start at off to w. The
// part inside the base file is copied from the *os.File itself, so a
// network connection behind w can send it with sendfile(2) instead of
// through a buffer. It moves the base file's offset: do not call it
// concurrently on one Initrd (ReadAt stays safe).
func (i *Initrd) WriteRange(w io.Writer, off, n int64) (int64, error) {
	if off < 0 || n < 0 || off+n > i.all.size {
		return 0, fmt.Errorf("initrd range %d+%d outside its %d bytes", off, n, i.all.size)
	}
	var written int64
	if off < i.base {
		k := min(n, i.base-off)
		if _, err := i.f.Seek(off, io.SeekStart); err != nil {
			return 0, fmt.Errorf("base initrd: %w", err)
		}
		m, err := io.Copy(w, &io.LimitedReader{R: i.f, N: k})
		written += m
		if err == nil && m < k {
			err = io.ErrUnexpectedEOF // the file shrank under us
		}
		if err != nil {
			return written, err
		}
		off, n = off+k, n-k
	}
	m, err := io.Copy(w, io.NewSectionReader(i.all, off, n))
	return written + m, err
}
