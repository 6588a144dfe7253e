package main

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseStatus(t *testing.T) {
	in := "Name:\trackbootd\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nThreads:\t9\n"
	m, err := parseStatus(bufio.NewScanner(strings.NewReader(in)))
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS != 100<<20 || m.HWM != 200<<20 {
		t.Errorf("got %+v", m)
	}
	for _, bad := range []string{"Name:\tx\n", "VmRSS:\t12 MB\nVmHWM:\t1 kB\n", "VmRSS:\tx kB\nVmHWM:\t1 kB\n"} {
		if _, err := parseStatus(bufio.NewScanner(strings.NewReader(bad))); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// This process's own /proc files parse: memory is non-zero.
func TestReadOwnProc(t *testing.T) {
	m, err := readMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS == 0 || m.HWM < m.RSS {
		t.Errorf("memory %+v", m)
	}
	if _, err := cpuTime(os.Getpid()); err != nil {
		t.Fatal(err)
	}
}

func TestParseProcStatAndPressure(t *testing.T) {
	total, idle, steal, ok := parseProcStat("cpu  100 0 50 800 50 0 0 25 7 0\ncpu0 1 2 3 4 5 6 7 8\n")
	if !ok || total != 1025 || idle != 850 || steal != 25 {
		t.Errorf("total %d idle %d steal %d ok %t", total, idle, steal, ok)
	}
	if _, _, _, ok := parseProcStat("intr 1 2 3\n"); ok {
		t.Error("a non-cpu line parsed")
	}
	p, ok := parsePressure("some avg10=1.00 avg60=2.00 avg300=3.00 total=123456\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=9\n")
	if !ok || p != 123456 {
		t.Errorf("pressure %d %t", p, ok)
	}
	a := cpuMark{at: time.Unix(0, 0), total: 1000, idle: 500, steal: 0, pressure: 0, server: 0, ok: true, pressOK: true, serverOK: true}
	b := cpuMark{at: time.Unix(10, 0), total: 3000, idle: 1000, steal: 200, pressure: 5_000_000, server: 2 * time.Second, ok: true, pressOK: true, serverOK: true}
	a.ioOK, b.ioOK, b.ioPressure = true, true, 1_000_000
	if w := between(a, b); w != (cpuWindow{Busy: "75%", Steal: "10%", Pressure: "50%", Server: "20%", IOPressure: "10%", pressure: 0.5}) {
		t.Errorf("window %+v", w)
	}
}
