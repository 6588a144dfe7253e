package proc

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Busy returns the fraction (0–1) of all CPUs' time spent on anything but
// idle and iowait over the given interval, from /proc/stat.
func Busy(ctx context.Context, interval time.Duration) (float64, error) {
	b0, t0, err := cpuTimes()
	if err != nil {
		return 0, err
	}
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(interval):
	}
	b1, t1, err := cpuTimes()
	if err != nil {
		return 0, err
	}
	if t1 <= t0 {
		return 0, nil
	}
	return float64(b1-b0) / float64(t1-t0), nil
}

// WaitQuiet waits until the CPUs are less than maxBusy busy over a
// half-second sample, or until maxWait has passed. It returns the last
// sample and whether it was quiet.
func WaitQuiet(ctx context.Context, maxBusy float64, maxWait time.Duration) (float64, bool) {
	deadline := time.Now().Add(maxWait)
	for {
		b, err := Busy(ctx, 500*time.Millisecond)
		if err != nil {
			return 0, false
		}
		if b < maxBusy {
			return b, true
		}
		if time.Now().After(deadline) {
			return b, false
		}
	}
}

// cpuTimes returns busy and total jiffies of the "cpu" line of /proc/stat.
func cpuTimes() (busy, total int64, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, fmt.Errorf("proc: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("proc: unexpected /proc/stat line %q", line)
	}
	for i, v := range f[1:] {
		n, _ := strconv.ParseInt(v, 10, 64)
		if i >= 8 { // guest times are already counted in user and nice
			break
		}
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total, nil
}
