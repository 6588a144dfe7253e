package dhcpbench

import (
	"os"
	"testing"
	"time"
)

func TestParseKeaRun(t *testing.T) {
	f, err := os.Open("testdata/perfdhcp-kea-1000.out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if rep.DO.Sent != 1999 || rep.DO.Received != 1999 || rep.RA.Sent != 1999 || rep.RA.Received != 1999 {
		t.Errorf("counts = %+v / %+v, want 1999 everywhere", rep.DO, rep.RA)
	}
	if len(rep.DO.Delays) != 5 || len(rep.RA.Delays) != 5 {
		t.Fatalf("delays: %d DO, %d RA, want 5 and 5", len(rep.DO.Delays), len(rep.RA.Delays))
	}
	// sent / received: 000000.000103 / 000000.000561
	if d := rep.DO.Delays[0]; d < 457*time.Microsecond || d > 459*time.Microsecond {
		t.Errorf("first DO delay = %v, want 458µs", d)
	}
	st := stepOf(1000, 2*time.Second, rep)
	if st.Exchanges != 999.5 || st.DropPct != 0 || !st.OK {
		t.Errorf("step = %+v, want 999.5/s, no drops, sustained", st)
	}
}

func TestParseRejectsOtherOutput(t *testing.T) {
	f, err := os.Open("testdata/not-perfdhcp.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Parse(f); err == nil {
		t.Error("Parse accepted output without statistics")
	}
}

func TestStepCountsLostAcksAsDrops(t *testing.T) {
	rep := Report{DO: Phase{Sent: 1000, Received: 990}, RA: Phase{Sent: 990, Received: 985}}
	st := stepOf(500, 2*time.Second, rep)
	if st.DropPct != 1.5 || st.OK {
		t.Errorf("step = %+v, want 1.5%% drops and not sustained", st)
	}
}

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	p := Summarize(ds)
	want := Percentiles{P50: 50 * time.Millisecond, P90: 90 * time.Millisecond, P99: 99 * time.Millisecond, Max: 100 * time.Millisecond}
	if p != want {
		t.Errorf("Summarize = %+v, want %+v", p, want)
	}
	if ds[0] != 100*time.Millisecond {
		t.Error("Summarize reordered its input")
	}
	if (Summarize(nil) != Percentiles{}) {
		t.Error("Summarize(nil) is not zero")
	}
}

func TestSearchDoublesThenBisects(t *testing.T) {
	o := Options{StartRate: 1000, MaxRate: 64000, Refine: 3}
	limit := 5000 // the simulated server sustains up to this rate
	s := &search{}
	var asked []int
	for rate := s.next(o); rate != 0; rate = s.next(o) {
		asked = append(asked, rate)
		st := Step{Rate: rate, Exchanges: float64(rate), OK: rate <= limit}
		s.res.Steps = append(s.res.Steps, st)
		s.record(st)
	}
	want := []int{1000, 2000, 4000, 8000, 6000, 5000, 5500}
	if len(asked) != len(want) {
		t.Fatalf("asked %v, want %v", asked, want)
	}
	for i := range want {
		if asked[i] != want[i] {
			t.Fatalf("asked %v, want %v", asked, want)
		}
	}
	if s.res.Best.Rate != 5000 {
		t.Errorf("best = %d, want 5000", s.res.Best.Rate)
	}
}

func TestSearchStopsAtMaxRate(t *testing.T) {
	o := Options{StartRate: 1000, MaxRate: 4000, Refine: 3}
	s := &search{}
	n := 0
	for rate := s.next(o); rate != 0; rate = s.next(o) {
		n++
		st := Step{Rate: rate, Exchanges: float64(rate), OK: true}
		s.res.Steps = append(s.res.Steps, st)
		s.record(st)
	}
	if n != 3 || s.res.Best.Rate != 4000 {
		t.Errorf("%d steps, best %d; want 3 steps, best 4000", n, s.res.Best.Rate)
	}
}
