package initrd

import (
	"bytes"
	"io"
)

// part is one piece of a concatenation.
type part struct {
	r    io.ReaderAt
	size int64
}

// concat is an io.ReaderAt over parts laid end to end. It is safe for
// concurrent use when every part is (os.File and bytes.Reader are).
type concat struct {
	parts []part
	size  int64
}

func newConcat(parts ...part) *concat {
	c := &concat{}
	for _, p := range parts {
		if p.size > 0 {
			c.parts = append(c.parts, p)
			c.size += p.size
		}
	}
	return c
}

// ReadAt implements io.ReaderAt.
func (c *concat) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, io.ErrUnexpectedEOF
	}
	n := 0
	for _, pt := range c.parts {
		if len(p) == 0 {
			break
		}
		if off >= pt.size {
			off -= pt.size
			continue
		}
		want := min(int64(len(p)), pt.size-off)
		got, err := pt.r.ReadAt(p[:want], off)
		n += got
		if int64(got) < want {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF // the file shrank under us
			}
			return n, err
		}
		p = p[got:]
		off = 0
	}
	if len(p) > 0 {
		return n, io.EOF
	}
	return n, nil
}

func zeros(n int64) part {
	return part{r: bytes.NewReader(make([]byte, n)), size: n}
}

func bytesReaderAt(b []byte) io.ReaderAt { return bytes.NewReader(b) }
