package main

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// recorder collects request latencies and failures of one kind of
// request; it is safe for concurrent use.
type recorder struct {
	mu     sync.Mutex
	name   string
	lat    []time.Duration
	errors int
}

func newRecorder(name string, capacity int) *recorder {
	return &recorder{name: name, lat: make([]time.Duration, 0, capacity)}
}

// add records one request that took d; err != nil counts a failure (its
// latency is not recorded).
func (r *recorder) add(d time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.errors++
		return
	}
	r.lat = append(r.lat, d)
}

// summary is the latency distribution of one recorder.
type summary struct {
	Name           string
	Count, Errors  int
	P50, P90, P99  time.Duration
	P999, Max, Avg time.Duration
}

// summarize computes the percentiles (nearest rank) of what was recorded.
func (r *recorder) summarize() summary {
	r.mu.Lock()
	lat := slices.Clone(r.lat)
	s := summary{Name: r.name, Count: len(r.lat), Errors: r.errors}
	r.mu.Unlock()
	if len(lat) == 0 {
		return s
	}
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	s.P50, s.P90, s.P99 = percentile(lat, 50), percentile(lat, 90), percentile(lat, 99)
	s.P999, s.Max = percentile(lat, 99.9), lat[len(lat)-1]
	s.Avg = sum / time.Duration(len(lat))
	return s
}

// percentile is the nearest-rank p-th percentile of sorted (ascending):
// the smallest value with at least p% of the values at or below it. It is
// 0 for an empty slice.
func percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	rank = max(1, min(n, rank))
	return sorted[rank-1]
}

// timeline keeps, per window of a phase, how many requests started in it,
// how many took longer than the poll target, and the slowest.
type timeline struct {
	mu      sync.Mutex
	start   time.Time
	width   time.Duration
	windows []window
	marks   []cpuMark // machine and server CPU at each window's start
}

// mark records the CPU counters at the start of window len(marks).
func (tl *timeline) mark(m cpuMark) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.marks = append(tl.marks, m)
}

// cpu is what the machine did during window i (false: not sampled).
func (tl *timeline) cpu(i int) (cpuWindow, bool) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if i+1 >= len(tl.marks) {
		return cpuWindow{}, false
	}
	return between(tl.marks[i], tl.marks[i+1]), true
}

// window is one slice of a timeline.
type window struct {
	Count, Slow int
	Max         time.Duration
	lat         []time.Duration
}

func newTimeline(start time.Time, width, total time.Duration) *timeline {
	n := int((total+width-1)/width) + 1
	return &timeline{start: start, width: width, windows: make([]window, n)}
}

// add records a request started at t that took d.
func (tl *timeline) add(t time.Time, d time.Duration) {
	if t.Before(tl.start) {
		return
	}
	i := int(t.Sub(tl.start) / tl.width)
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if i < 0 || i >= len(tl.windows) {
		return
	}
	w := &tl.windows[i]
	w.Count++
	if d >= targetPollP99 {
		w.Slow++
	}
	w.Max = max(w.Max, d)
	w.lat = append(w.lat, d)
}

// quiet summarizes the requests of the windows during which the machine's
// CPU pressure stayed below limit (a fraction), and how many windows
// those were.
func (tl *timeline) quiet(limit float64) (summary, int) {
	r := newRecorder(fmt.Sprintf("polls in windows with CPU pressure < %.0f%%", 100*limit), 0)
	n := 0
	for i, w := range tl.snapshot() {
		c, ok := tl.cpu(i)
		if !ok || c.pressure < 0 || c.pressure >= limit {
			continue
		}
		n++
		for _, d := range w.lat {
			r.add(d, nil)
		}
	}
	return r.summarize(), n
}

// snapshot returns the windows that saw requests.
func (tl *timeline) snapshot() []window {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	out := slices.Clone(tl.windows)
	for len(out) > 0 && out[len(out)-1].Count == 0 {
		out = out[:len(out)-1]
	}
	return out
}
