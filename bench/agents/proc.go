package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrProc: a /proc file of the server could not be read.
var ErrProc = errors.New("agents: /proc")

// memory is a process's resident memory in bytes.
type memory struct {
	RSS, HWM uint64 // VmRSS and VmHWM
}

// readMemory reads VmRSS and VmHWM of pid.
func readMemory(pid int) (memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, fmt.Errorf("%w: %w", ErrProc, err)
	}
	defer f.Close()
	return parseStatus(bufio.NewScanner(f))
}

// parseStatus reads the VmRSS and VmHWM lines ("VmRSS:  1234 kB").
func parseStatus(sc *bufio.Scanner) (memory, error) {
	var m memory
	found := 0
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			return m, fmt.Errorf("%w: status line %q", ErrProc, sc.Text())
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return m, fmt.Errorf("%w: status line %q: %w", ErrProc, sc.Text(), err)
		}
		if key == "VmRSS" {
			m.RSS = kb << 10
		} else {
			m.HWM = kb << 10
		}
		found++
	}
	if err := sc.Err(); err != nil {
		return m, fmt.Errorf("%w: %w", ErrProc, err)
	}
	if found != 2 {
		return m, fmt.Errorf("%w: no VmRSS/VmHWM in status", ErrProc)
	}
	return m, nil
}

// cpuTime is the user+system CPU time pid has used.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrProc, err)
	}
	// Fields after the command name, which is in parentheses and may
	// contain spaces: state is field 3, utime 14, stime 15.
	_, rest, ok := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0, fmt.Errorf("%w: malformed stat", ErrProc)
	}
	var ticks uint64
	for _, s := range f[11:13] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w: stat: %w", ErrProc, err)
		}
		ticks += v
	}
	return time.Duration(ticks) * time.Second / 100, nil // USER_HZ is 100 on Linux
}

// memSampler samples a process's memory every interval until stopped and
// keeps the highest RSS seen.
type memSampler struct {
	mu      sync.Mutex
	pid     int
	peak    memory
	last    memory
	samples int
}

// run samples until ctx ends.
func (s *memSampler) run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		s.sample()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *memSampler) sample() {
	m, err := readMemory(s.pid)
	if err != nil {
		return // the process is gone; the last sample stands
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = m
	s.peak.RSS = max(s.peak.RSS, m.RSS)
	s.peak.HWM = max(s.peak.HWM, m.HWM)
	s.samples++
}

// result is the highest VmRSS sampled and the kernel's high-water mark.
func (s *memSampler) result() (peak memory, samples int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak, s.samples
}
