package tftpbench

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// Load describes a load run: Workers concurrent workers, each fetching File
// PerWorker times in a row.
type Load struct {
	Server    string // host:port
	File      string
	Size      int64 // expected size; a transfer of another size is an error
	Workers   int
	PerWorker int
	BlkSize   int
	Window    int // windowsize asked (RFC 7440); 0 or 1 for lock-step
}

// Result is what a load run measured.
type Result struct {
	Transfers  int     `json:"transfers"`
	Errors     int     `json:"errors"`
	Bytes      int64   `json:"bytes"`
	Seconds    float64 `json:"seconds"`
	FirstError string  `json:"first_error,omitempty"`
}

// MiBps is the aggregate throughput in MiB/s.
func (r Result) MiBps() float64 { return float64(r.Bytes) / (1 << 20) / r.Seconds }

// PerSecond is completed transfers per second.
func (r Result) PerSecond() float64 { return float64(r.Transfers) / r.Seconds }

// Run executes the load; it stops early when ctx ends.
func (l Load) Run(ctx context.Context) (Result, error) {
	srv, err := net.ResolveUDPAddr("udp4", l.Server)
	if err != nil {
		return Result{}, fmt.Errorf("tftpbench: server address: %w", err)
	}
	var (
		mu  sync.Mutex
		res Result
		wg  sync.WaitGroup
	)
	record := func(n int64, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err == nil && l.Size > 0 && n != l.Size {
			err = fmt.Errorf("tftpbench: got %d bytes, want %d", n, l.Size)
		}
		if err != nil {
			res.Errors++
			if res.FirstError == "" {
				res.FirstError = err.Error()
			}
			return
		}
		res.Transfers++
		res.Bytes += n
	}
	start := time.Now()
	for w := 0; w < l.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.worker(ctx, srv, record); err != nil {
				record(0, err)
			}
		}()
	}
	wg.Wait()
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

func (l Load) worker(ctx context.Context, srv *net.UDPAddr, record func(int64, error)) error {
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{})
	if err != nil {
		return fmt.Errorf("tftpbench: socket: %w", err)
	}
	defer conn.Close()
	c := &Client{Conn: conn, Server: srv, BlkSize: l.BlkSize, WindowSize: l.Window, Timeout: time.Second, Retries: 5}
	for i := 0; i < l.PerWorker && ctx.Err() == nil; i++ {
		record(c.Get(l.File))
	}
	return nil
}
