package iso

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Errors returned while reading the ISO9660 file system.
var (
	ErrNotISO    = errors.New("iso: not an ISO9660 image")
	ErrTruncated = errors.New("iso: image truncated")
	ErrNotFound  = errors.New("iso: file not found in image")
	ErrCorrupt   = errors.New("iso: corrupt ISO9660 structure")
)

const (
	sectorSize     = 2048
	firstVDSector  = 16
	maxDescriptors = 64      // volume descriptors scanned before giving up
	maxDirSize     = 4 << 20 // a directory larger than this is refused
	maxPathDepth   = 16
	flagDirectory  = 0x02
	flagMultiExt   = 0x80
)

// Record is one directory record: a file or a directory and its extent.
type Record struct {
	Name   string // as stored, without ";1" and a trailing dot
	Offset int64  // byte offset of the extent in the image
	Size   int64
	Dir    bool
}

// volume is what the primary volume descriptor says.
type volume struct {
	blockSize int64
	root      Record
	size      int64 // image size in bytes
}

// readVolume finds the primary volume descriptor.
func readVolume(r io.ReaderAt, size int64) (volume, error) {
	buf := make([]byte, sectorSize)
	for i := int64(0); i < maxDescriptors; i++ {
		off := (firstVDSector + i) * sectorSize
		if err := readFull(r, size, buf, off); err != nil {
			if i == 0 {
				return volume{}, fmt.Errorf("%w: no volume descriptor at byte %d (image is %d bytes): %w", ErrNotISO, off, size, err)
			}
			return volume{}, err
		}
		if string(buf[1:6]) != "CD001" {
			return volume{}, fmt.Errorf("%w: no CD001 signature at byte %d", ErrNotISO, off+1)
		}
		switch buf[0] {
		case 1:
			return parsePVD(buf, size)
		case 255:
			return volume{}, fmt.Errorf("%w: no primary volume descriptor", ErrNotISO)
		}
	}
	return volume{}, fmt.Errorf("%w: no primary volume descriptor in the first %d descriptors", ErrNotISO, maxDescriptors)
}

func parsePVD(pvd []byte, size int64) (volume, error) {
	bs := int64(binary.LittleEndian.Uint16(pvd[128:130]))
	if bs != 512 && bs != 1024 && bs != 2048 {
		return volume{}, fmt.Errorf("%w: logical block size %d", ErrCorrupt, bs)
	}
	v := volume{blockSize: bs, size: size}
	declared := int64(binary.LittleEndian.Uint32(pvd[80:84])) * bs
	if declared > size {
		return volume{}, fmt.Errorf("%w: volume is %d bytes, file only %d", ErrTruncated, declared, size)
	}
	root, n, err := parseRecord(pvd[156:190], bs)
	if err != nil || n == 0 || !root.Dir {
		return volume{}, fmt.Errorf("%w: bad root directory record", ErrCorrupt)
	}
	v.root = root
	return v, nil
}

// parseRecord decodes the directory record at the start of b and returns
// its length (0 for the zero padding at the end of a sector).
func parseRecord(b []byte, blockSize int64) (Record, int, error) {
	if len(b) == 0 || b[0] == 0 {
		return Record{}, 0, nil
	}
	n := int(b[0])
	if n < 34 || n > len(b) {
		return Record{}, 0, fmt.Errorf("%w: directory record length %d", ErrCorrupt, n)
	}
	nameLen := int(b[32])
	if 33+nameLen > n {
		return Record{}, 0, fmt.Errorf("%w: name length %d in a %d-byte record", ErrCorrupt, nameLen, n)
	}
	rec := Record{
		Name:   cleanName(b[33 : 33+nameLen]),
		Offset: int64(binary.LittleEndian.Uint32(b[2:6])) * blockSize,
		Size:   int64(binary.LittleEndian.Uint32(b[10:14])),
		Dir:    b[25]&flagDirectory != 0,
	}
	if b[25]&flagMultiExt != 0 {
		rec.Name = "" // a multi-extent file is never one this package looks up
	}
	return rec, n, nil
}

// cleanName drops the version suffix and the dot of an empty extension;
// "." and ".." (bytes 0 and 1) become "".
func cleanName(b []byte) string {
	if len(b) == 1 && b[0] <= 1 {
		return ""
	}
	s := string(b)
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(s, ".")
}

// ParseDir decodes the records of one directory extent. Records never cross
// a sector boundary; a zero length byte skips to the next sector.
func ParseDir(data []byte, blockSize int64) ([]Record, error) {
	var recs []Record
	for pos := 0; pos < len(data); {
		rec, n, err := parseRecord(data[pos:], blockSize)
		if err != nil {
			return nil, fmt.Errorf("at directory byte %d: %w", pos, err)
		}
		if n == 0 {
			pos = (pos/sectorSize + 1) * sectorSize
			continue
		}
		if pos/sectorSize != (pos+n-1)/sectorSize {
			return nil, fmt.Errorf("%w: directory record at byte %d crosses a sector", ErrCorrupt, pos)
		}
		if rec.Name != "" {
			recs = append(recs, rec)
		}
		pos += n
	}
	return recs, nil
}

// readDir reads and decodes the directory d.
func (v volume) readDir(r io.ReaderAt, d Record) ([]Record, error) {
	if d.Size > maxDirSize {
		return nil, fmt.Errorf("%w: directory of %d bytes (limit %d)", ErrCorrupt, d.Size, maxDirSize)
	}
	buf := make([]byte, d.Size)
	if err := readFull(r, v.size, buf, d.Offset); err != nil {
		return nil, err
	}
	return ParseDir(buf, v.blockSize)
}

// lookup walks a slash-separated path from the root. Names match ignoring
// case, and also in their 8.3 form (igninfo.json is stored as IGNINFO.JSO
// in an ISO level 1 tree).
func (v volume) lookup(r io.ReaderAt, path string) (Record, error) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) > maxPathDepth || path == "" {
		return Record{}, fmt.Errorf("%w: %q", ErrNotFound, path)
	}
	cur := v.root
	for i, p := range parts {
		if !cur.Dir {
			return Record{}, fmt.Errorf("%w: %q: %q is not a directory", ErrNotFound, path, strings.Join(parts[:i], "/"))
		}
		recs, err := v.readDir(r, cur)
		if err != nil {
			return Record{}, fmt.Errorf("reading directory of %q: %w", path, err)
		}
		next, ok := findName(recs, p)
		if !ok {
			return Record{}, fmt.Errorf("%w: %q", ErrNotFound, path)
		}
		cur = next
	}
	return cur, nil
}

func findName(recs []Record, want string) (Record, bool) {
	short := shortName(want)
	for _, rec := range recs {
		if strings.EqualFold(rec.Name, want) || strings.EqualFold(rec.Name, short) {
			return rec, true
		}
	}
	return Record{}, false
}

// shortName is the ISO level 1 (8.3) form of a name.
func shortName(name string) string {
	base, ext := name, ""
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		base, ext = name[:i], name[i+1:]
	}
	base = base[:min(len(base), 8)]
	ext = ext[:min(len(ext), 3)]
	if ext == "" {
		return strings.ToUpper(base)
	}
	return strings.ToUpper(base + "." + ext)
}

// readFile returns the contents of a file record, refusing more than limit.
func (v volume) readFile(r io.ReaderAt, rec Record, limit int64) ([]byte, error) {
	if rec.Dir {
		return nil, fmt.Errorf("%w: %q is a directory", ErrCorrupt, rec.Name)
	}
	if rec.Size > limit {
		return nil, fmt.Errorf("%w: %q is %d bytes (limit %d)", ErrCorrupt, rec.Name, rec.Size, limit)
	}
	buf := make([]byte, rec.Size)
	return buf, readFull(r, v.size, buf, rec.Offset)
}

// readFull reads len(buf) bytes at off, or says the image is truncated.
func readFull(r io.ReaderAt, size int64, buf []byte, off int64) error {
	if off < 0 || off+int64(len(buf)) > size {
		return fmt.Errorf("%w: need bytes %d-%d, image is %d bytes", ErrTruncated, off, off+int64(len(buf)), size)
	}
	n, err := r.ReadAt(buf, off)
	if n == len(buf) {
		return nil
	}
	return fmt.Errorf("%w: reading %d bytes at %d: %w", ErrTruncated, len(buf), off, err)
}
