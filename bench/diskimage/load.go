package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// ErrBody: a downloaded image has the wrong length or sha256.
var ErrBody = errors.New("diskimage: wrong body")

// Load is one load run: one client per URL, all at once, each downloading
// its URL once and hashing the body.
type Load struct {
	URLs   []string
	Size   int64  // expected length
	SHA256 string // expected hex sha256; "" skips hashing
}

// Result is what a load run measured.
type Result struct {
	Downloads  int     `json:"downloads"`
	Errors     int     `json:"errors"`
	Bytes      int64   `json:"bytes"`
	Seconds    float64 `json:"seconds"`
	FirstError string  `json:"first_error,omitempty"`
	// Per-download durations in seconds: median, 90th percentile, slowest.
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	Max float64 `json:"max"`
}

// MBps is the aggregate throughput in MB/s (10⁶ bytes).
func (r Result) MBps() float64 {
	if r.Seconds <= 0 {
		return 0
	}
	return float64(r.Bytes) / 1e6 / r.Seconds
}

// Run executes the load; it stops early when ctx ends.
func (l Load) Run(ctx context.Context) Result {
	client := &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		MaxIdleConnsPerHost: len(l.URLs),
		DisableCompression:  true,
	}}
	defer client.CloseIdleConnections()
	var (
		mu   sync.Mutex
		res  Result
		took []float64
		wg   sync.WaitGroup
	)
	start := time.Now()
	for _, u := range l.URLs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			n, err := l.fetch(ctx, client, u)
			mu.Lock()
			defer mu.Unlock()
			res.Bytes += n // bytes moved count even when the check fails
			if err != nil {
				res.Errors++
				if res.FirstError == "" {
					res.FirstError = err.Error()
				}
				return
			}
			res.Downloads++
			took = append(took, time.Since(t0).Seconds())
		}()
	}
	wg.Wait()
	res.Seconds = time.Since(start).Seconds()
	if len(took) > 0 {
		slices.Sort(took)
		res.P50, res.P90, res.Max = took[len(took)/2], took[len(took)*9/10], took[len(took)-1]
	}
	return res
}

// fetch streams one download through sha256, as the install step does
// (which also writes it to disk: not measured here).
func (l Load) fetch(ctx context.Context, c *http.Client, url string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, fmt.Errorf("diskimage: %w", err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, fmt.Errorf("diskimage: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%w: %s: %s", ErrBody, url, resp.Status)
	}
	h := sha256.New()
	var w io.Writer = h
	if l.SHA256 == "" {
		w = io.Discard
	}
	n, err := copyBlocks(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("diskimage: %s: %w", url, err)
	}
	if n != l.Size {
		return n, fmt.Errorf("%w: %s: %d bytes, want %d", ErrBody, url, n, l.Size)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); l.SHA256 != "" && sum != l.SHA256 {
		return n, fmt.Errorf("%w: %s: sha256 %s, want %s", ErrBody, url, sum, l.SHA256)
	}
	return n, nil
}

// copyBlocks copies in 1 MiB reads, the install step's block size.
func copyBlocks(w io.Writer, r io.Reader) (int64, error) {
	buf := make([]byte, 1<<20)
	var total int64
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n]) // a hash or io.Discard never fails
			total += int64(n)
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}
