package httpbench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
)

// fetch downloads url once and checks the body's size and, with l.SHA256,
// its sum.
func (l Load) fetch(ctx context.Context, c *http.Client, url string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, fmt.Errorf("httpbench: %w", err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, fmt.Errorf("httpbench: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("httpbench: %s: %s", url, resp.Status)
	}
	var h hash.Hash
	if l.SHA256 != "" {
		h = sha256.New()
	}
	n, err := l.read(resp.Body, h)
	if err != nil {
		return n, fmt.Errorf("httpbench: %s: %w", url, err)
	}
	if (resp.ContentLength >= 0 && n != resp.ContentLength) || (l.Size > 0 && n != l.Size) {
		return n, fmt.Errorf("%w: %s: %d bytes (Content-Length %d, expected %d)", ErrSize, url, n, resp.ContentLength, l.Size)
	}
	if h != nil {
		if sum := hex.EncodeToString(h.Sum(nil)); sum != l.SHA256 {
			return n, fmt.Errorf("%w: %s: %s, expected %s", ErrSum, url, sum, l.SHA256)
		}
	}
	return n, nil
}

// read reads r to the end in reads of l.Block bytes, feeding each to h
// when h is not nil.
func (l Load) read(r io.Reader, h hash.Hash) (int64, error) {
	block := l.Block
	if block <= 0 {
		block = DefaultBlock
	}
	buf := make([]byte, block)
	var total int64
	for {
		n, err := r.Read(buf)
		if n > 0 && h != nil {
			h.Write(buf[:n]) // a hash.Hash never returns an error
		}
		total += int64(n)
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}
