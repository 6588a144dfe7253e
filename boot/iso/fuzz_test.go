package iso

import (
	"bytes"
	"testing"
)

// FuzzParseDir: crafted directory extents must give records or an error,
// never a panic or an endless loop.
func FuzzParseDir(f *testing.F) {
	img := tinyISO()
	f.Add(img[18*sectorSize:19*sectorSize], int64(2048))
	f.Add(img[19*sectorSize:19*sectorSize+200], int64(512))
	f.Add([]byte{34, 0, 1, 0, 0, 0}, int64(2048))
	f.Add([]byte{0, 0, 0, 255}, int64(1024))
	f.Fuzz(func(t *testing.T, data []byte, blockSize int64) {
		recs, err := ParseDir(data, blockSize)
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.Name == "" || r.Size < 0 {
				t.Fatalf("bad record %+v", r)
			}
		}
	})
}

// FuzzInspect: a crafted image (descriptors, directories, igninfo.json,
// kargs.json) must inspect to areas inside it, or to an error.
func FuzzInspect(f *testing.F) {
	img := compactISO()
	f.Add(img[16*sectorSize:])
	f.Add(img[16*sectorSize : 16*sectorSize+200])
	f.Fuzz(func(t *testing.T, tail []byte) {
		data := append(make([]byte, 16*sectorSize), tail...)
		l, err := Inspect(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if a := l.Ignition; a.Offset < 0 || a.Length <= 0 || a.Offset+a.Length > int64(len(data)) {
			t.Fatalf("area %+v outside a %d-byte image", a, len(data))
		}
	})
}
