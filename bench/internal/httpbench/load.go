package httpbench

import (
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Sentinel errors of a download whose body is not what was expected.
var (
	// ErrSize: a body's length differs from what was announced or expected.
	ErrSize = errors.New("httpbench: body has the wrong size")
	// ErrSum: a body's sha256 differs from Load.SHA256.
	ErrSum = errors.New("httpbench: body has the wrong sha256")
)

// DefaultBlock is the read size when Load.Block is 0 (io.Discard would read
// 8 KiB at a time, which costs the client more CPU than the servers it
// measures).
const DefaultBlock = 256 << 10

// Load describes a load run: one goroutine per URL, all at once, each
// downloading its URL Rounds times in a row.
type Load struct {
	URLs   []string
	Size   int64  // expected body size; 0 accepts any size matching Content-Length
	Rounds int    // downloads per URL; 0 means 1
	SHA256 string // expected hex sha256 of every body; "" skips hashing
	Block  int    // bytes per read; 0 means DefaultBlock
}

// Result is what a load run measured.
type Result struct {
	Downloads  int     `json:"downloads"`
	Errors     int     `json:"errors"`
	Bytes      int64   `json:"bytes"` // of the successful downloads
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

// MBps is the aggregate throughput in MB/s (10⁶ bytes), 0 for an empty run.
func (r Result) MBps() float64 {
	if r.Seconds <= 0 {
		return 0
	}
	return float64(r.Bytes) / 1e6 / r.Seconds
}

// tally collects the downloads of a run from its goroutines.
type tally struct {
	mu   sync.Mutex
	res  Result
	took []float64
}

func (t *tally) record(n int64, d time.Duration, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		t.res.Errors++
		if t.res.FirstError == "" {
			t.res.FirstError = err.Error()
		}
		return
	}
	t.res.Downloads++
	t.res.Bytes += n
	t.took = append(t.took, d.Seconds())
}

// result is the tally with the run's duration and percentiles filled in.
func (t *tally) result(d time.Duration) Result {
	res := t.res
	res.Seconds = d.Seconds()
	if took := slices.Sorted(slices.Values(t.took)); len(took) > 0 {
		res.P50, res.P90, res.Max = took[len(took)/2], took[len(took)*9/10], took[len(took)-1]
	}
	return res
}

// Run executes the load; it stops early when ctx ends.
func (l Load) Run(ctx context.Context) Result {
	client := &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		MaxIdleConnsPerHost: len(l.URLs),
		DisableCompression:  true,
	}}
	defer client.CloseIdleConnections()
	rounds := max(l.Rounds, 1)
	var (
		t  tally
		wg sync.WaitGroup
	)
	start := time.Now()
	for _, u := range l.URLs {
		wg.Go(func() {
			for i := 0; i < rounds && ctx.Err() == nil; i++ {
				t0 := time.Now()
				n, err := l.fetch(ctx, client, u)
				t.record(n, time.Since(t0), err)
			}
		})
	}
	wg.Wait()
	return t.result(time.Since(start))
}
