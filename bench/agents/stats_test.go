package main

import (
	"errors"
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	for _, c := range []struct {
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{nil, 50, 0},
		{ms(7), 99, 7 * time.Millisecond},
		{ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{ms(1, 2, 3, 4), 51, 3 * time.Millisecond},
		{ms(1, 2, 3, 4), 100, 4 * time.Millisecond},
		{ms(1, 2, 3, 4), 0, 1 * time.Millisecond},
		{ms(hundred...), 99, 99 * time.Millisecond},
		{ms(hundred...), 99.9, 100 * time.Millisecond},
		{ms(hundred...), 90, 90 * time.Millisecond},
	} {
		if got := percentile(c.in, c.p); got != c.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", c.in, c.p, got, c.want)
		}
	}
}

func TestRecorderSummary(t *testing.T) {
	r := newRecorder("poll", 0)
	for i := 100; i >= 1; i-- { // out of order: summarize sorts
		r.add(time.Duration(i)*time.Millisecond, nil)
	}
	r.add(time.Hour, errors.New("refused")) // a failure is counted, not timed
	s := r.summarize()
	if s.Count != 100 || s.Errors != 1 {
		t.Fatalf("count %d errors %d, want 100 and 1", s.Count, s.Errors)
	}
	if s.P50 != 50*time.Millisecond || s.P99 != 99*time.Millisecond || s.Max != 100*time.Millisecond {
		t.Errorf("p50 %v p99 %v max %v", s.P50, s.P99, s.Max)
	}
	if s.Avg != 50500*time.Microsecond {
		t.Errorf("avg %v, want 50.5ms", s.Avg)
	}
}

func TestTimelineWindows(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tl := newTimeline(t0, 10*time.Second, 30*time.Second)
	tl.add(t0, time.Millisecond)
	tl.add(t0.Add(9*time.Second), 80*time.Millisecond)
	tl.add(t0.Add(25*time.Second), 3*time.Second)
	tl.add(t0.Add(-time.Second), time.Hour) // before the start: ignored
	tl.add(t0.Add(time.Hour), time.Hour)    // after the end: ignored
	got := tl.snapshot()
	want := []window{{Count: 2, Slow: 1, Max: 80 * time.Millisecond}, {}, {Count: 1, Slow: 1, Max: 3 * time.Second}}
	if len(got) != len(want) {
		t.Fatalf("got %d windows %v, want %v", len(got), got, want)
	}
	for i := range want {
		if got[i].Count != want[i].Count || got[i].Slow != want[i].Slow || got[i].Max != want[i].Max {
			t.Errorf("window %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// Only the windows whose CPU pressure stayed under the limit count as
// quiet.
func TestTimelineQuiet(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tl := newTimeline(t0, 10*time.Second, 20*time.Second)
	tl.add(t0, 2*time.Millisecond)
	tl.add(t0.Add(time.Second), 4*time.Millisecond)
	tl.add(t0.Add(11*time.Second), 900*time.Millisecond)
	mark := func(sec int64, pressureUS uint64) cpuMark {
		return cpuMark{at: time.Unix(1000+sec, 0), pressure: pressureUS, pressOK: true}
	}
	tl.mark(mark(0, 0))
	tl.mark(mark(10, 1_000_000))  // 10% in the first window
	tl.mark(mark(20, 10_000_000)) // 90% in the second
	q, n := tl.quiet(0.15)
	if n != 1 || q.Count != 2 || q.Max != 4*time.Millisecond {
		t.Errorf("%d windows, %+v", n, q)
	}
}
