package main

import (
	"bufio"
	"os"
	"strings"
	"testing"
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
