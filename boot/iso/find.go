package iso

import (
	"fmt"
	"io"
)

// Find returns the record of the regular file at path (slash-separated,
// names matched ignoring case and in their 8.3 form) in the ISO9660 image
// r of the given size; its extent lies inside the image. A missing file,
// or a directory, is an error wrapping ErrNotFound.
func Find(r io.ReaderAt, size int64, path string) (Record, error) {
	v, err := readVolume(r, size)
	if err != nil {
		return Record{}, err
	}
	rec, err := v.lookup(r, path)
	if err != nil {
		return Record{}, err
	}
	switch {
	case rec.Dir:
		return Record{}, fmt.Errorf("%w: %q is a directory", ErrNotFound, path)
	case rec.Offset < 0 || rec.Offset+rec.Size > size:
		return Record{}, fmt.Errorf("%w: %q needs bytes %d-%d, image is %d bytes", ErrTruncated, path, rec.Offset, rec.Offset+rec.Size, size)
	}
	return rec, nil
}
