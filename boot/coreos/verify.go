package coreos

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// Verify checks every file of files that has an expected sha256; a
// mismatch is an error wrapping ErrChecksum naming the file and both sums.
// It reads each file whole and stops when ctx ends.
func Verify(ctx context.Context, files ...File) error {
	for _, f := range files {
		if f.Path == "" || f.SHA256 == "" {
			continue
		}
		got, err := SHA256(ctx, f.Path)
		if err != nil {
			return err
		}
		if got != f.SHA256 {
			return fmt.Errorf("%w: %s has sha256 %s, expected %s", ErrChecksum, f.Path, got, f.SHA256)
		}
	}
	return nil
}

// SHA256 is the hex sha256 of the file at path.
func SHA256(ctx context.Context, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, ctxReader{ctx, f}); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ctxReader stops reading when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
