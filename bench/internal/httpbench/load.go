package httpbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// ErrSize is returned when a body's length differs from what was announced
// or expected.
var ErrSize = errors.New("httpbench: body has the wrong size")

// Load describes a load run: one goroutine per URL, all at once, each
// downloading its URL Rounds times in a row.
type Load struct {
	URLs   []string
	Size   int64 // expected body size; 0 accepts any size matching Content-Length
	Rounds int
}

// Result is what a load run measured.
type Result struct {
	Downloads  int     `json:"downloads"`
	Errors     int     `json:"errors"`
	Bytes      int64   `json:"bytes"`
	Seconds    float64 `json:"seconds"`
	FirstError string  `json:"first_error,omitempty"`
	// Durations of the successful downloads: median, 90th percentile and
	// slowest, in seconds.
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	Max float64 `json:"max"`
}

// MiBps is the aggregate throughput in MiB/s.
func (r Result) MiBps() float64 { return float64(r.Bytes) / (1 << 20) / r.Seconds }

// Run executes the load; it stops early when ctx ends.
func (l Load) Run(ctx context.Context) Result {
	client := &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		MaxIdleConnsPerHost: len(l.URLs),
		DisableCompression:  true,
	}}
	defer client.CloseIdleConnections()
	var (
		mu  sync.Mutex
		res Result
		wg  sync.WaitGroup
	)
	var took []float64
	record := func(n int64, d time.Duration, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			res.Errors++
			if res.FirstError == "" {
				res.FirstError = err.Error()
			}
			return
		}
		res.Downloads++
		res.Bytes += n
		took = append(took, d.Seconds())
	}
	start := time.Now()
	for _, u := range l.URLs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < l.Rounds && ctx.Err() == nil; i++ {
				t0 := time.Now()
				n, err := l.fetch(ctx, client, u)
				record(n, time.Since(t0), err)
			}
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
	n, err := drain(resp.Body)
	if err != nil {
		return n, fmt.Errorf("httpbench: %s: %w", url, err)
	}
	if (resp.ContentLength >= 0 && n != resp.ContentLength) || (l.Size > 0 && n != l.Size) {
		return n, fmt.Errorf("%w: %s: %d bytes (Content-Length %d, expected %d)", ErrSize, url, n, resp.ContentLength, l.Size)
	}
	return n, nil
}

// drain reads r to the end in large chunks (io.Discard would read 8 KiB at a
// time, which costs the client more CPU than the servers it measures).
func drain(r io.Reader) (int64, error) {
	buf := make([]byte, 256<<10)
	var total int64
	for {
		n, err := r.Read(buf)
		total += int64(n)
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}
