package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// cpuMark is the machine's and the server's CPU counters at one moment,
// to tell a slow server from a busy machine.
type cpuMark struct {
	at          time.Time
	total, idle uint64 // all CPU ticks and idle+iowait ticks (/proc/stat)
	steal       uint64 // ticks stolen by the hypervisor
	pressure    uint64 // µs some task waited for a CPU (/proc/pressure/cpu)
	ioPressure  uint64 // µs some task waited for I/O (/proc/pressure/io)
	ioOK        bool
	server      time.Duration // the server's CPU time
	ok, pressOK bool
	serverOK    bool
}

// readCPUMark reads the counters; missing files leave their ok false.
func readCPUMark(pid int) cpuMark {
	m := cpuMark{at: time.Now()}
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		m.total, m.idle, m.steal, m.ok = parseProcStat(string(b))
	}
	if b, err := os.ReadFile("/proc/pressure/cpu"); err == nil {
		m.pressure, m.pressOK = parsePressure(string(b))
	}
	if b, err := os.ReadFile("/proc/pressure/io"); err == nil {
		m.ioPressure, m.ioOK = parsePressure(string(b))
	}
	if d, err := cpuTime(pid); err == nil {
		m.server, m.serverOK = d, true
	}
	return m
}

// parseProcStat reads the aggregate "cpu" line of /proc/stat.
func parseProcStat(s string) (total, idle, steal uint64, ok bool) {
	line, _, _ := strings.Cut(s, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, 0, false
	}
	v := make([]uint64, 0, len(f)-1)
	for _, x := range f[1:] {
		n, err := strconv.ParseUint(x, 10, 64)
		if err != nil {
			return 0, 0, 0, false
		}
		v = append(v, n)
	}
	for _, n := range v[:min(len(v), 8)] { // guest time is already in user
		total += n
	}
	return total, v[3] + v[4], v[7], true
}

// parsePressure reads total= of the "some" line.
func parsePressure(s string) (uint64, bool) {
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "some ") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "total="); ok {
				n, err := strconv.ParseUint(v, 10, 64)
				return n, err == nil
			}
		}
	}
	return 0, false
}

// cpuWindow describes the time between two marks.
type cpuWindow struct {
	Busy, Steal, Pressure, Server string  // percentages, "?" when unknown
	IOPressure                    string  // percentage of time some task waited for I/O
	pressure                      float64 // CPU pressure as a fraction, -1 when unknown
}

func between(a, b cpuMark) cpuWindow {
	w := cpuWindow{Busy: "?", Steal: "?", Pressure: "?", Server: "?", IOPressure: "?", pressure: -1}
	wall := b.at.Sub(a.at)
	if wall <= 0 {
		return w
	}
	if a.ok && b.ok && b.total > a.total {
		dt := float64(b.total - a.total)
		w.Busy = pct(1 - float64(b.idle-a.idle)/dt)
		w.Steal = pct(float64(b.steal-a.steal) / dt)
	}
	if a.pressOK && b.pressOK {
		w.pressure = float64(b.pressure-a.pressure) / float64(wall.Microseconds())
		w.Pressure = pct(w.pressure)
	}
	if a.ioOK && b.ioOK {
		w.IOPressure = pct(float64(b.ioPressure-a.ioPressure) / float64(wall.Microseconds()))
	}
	if a.serverOK && b.serverOK {
		w.Server = pct(float64(b.server-a.server) / float64(wall))
	}
	return w
}

func pct(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }
