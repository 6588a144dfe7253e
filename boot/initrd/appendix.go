package initrd

import (
	"bytes"
	"compress/gzip"
	"fmt"

	"github.com/cavaliergopher/cpio"
)

// ConfigName is the path of the Ignition config inside the appendix.
const ConfigName = "config.ign"

// Appendix returns the gzip'd newc cpio (magic 070701) archive holding
// ignition as config.ign (mode 0644, owned by root), zero-padded to a
// multiple of 4 bytes. It is deterministic: no timestamps are recorded.
func Appendix(ignition []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, fmt.Errorf("initrd appendix: %w", err)
	}
	cw := cpio.NewWriter(zw)
	hdr := &cpio.Header{Name: ConfigName, Mode: cpio.TypeReg | 0o644, Size: int64(len(ignition)), Links: 1}
	if err := cw.WriteHeader(hdr); err != nil {
		return nil, fmt.Errorf("initrd appendix: %w", err)
	}
	if _, err := cw.Write(ignition); err != nil {
		return nil, fmt.Errorf("initrd appendix: %w", err)
	}
	if err := cw.Close(); err != nil {
		return nil, fmt.Errorf("initrd appendix: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("initrd appendix: %w", err)
	}
	buf.Write(make([]byte, pad4(int64(buf.Len()))))
	return buf.Bytes(), nil
}

// pad4 is the number of zero bytes that bring n to a multiple of 4.
func pad4(n int64) int64 {
	return (4 - n%4) % 4
}
