package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// snap is the server's counters at one moment.
type snap struct {
	at  time.Time
	m   map[string]float64 // /metrics
	cpu time.Duration      // server CPU time
}

func takeSnap(ctx context.Context, srv *server) snap {
	s := snap{at: time.Now()}
	s.m, _ = srv.metrics(ctx) // missing metrics show as "n/a"
	s.cpu, _ = cpuTime(srv.pid())
	return s
}

// phaseStats are the server's raft counters over one phase.
type phaseStats struct {
	Name     string
	Dur      time.Duration
	Units    int    // hosts registered or polls sent
	UnitName string // "host" or "poll"
	CPU      time.Duration
	// deltas; ok false when the server does not expose them
	Applied, LastIndex, Commands float64
	HasRaft                      bool
	Writes, WrittenEntries       float64 // log store writes and the entries they held
	WriteMs                      float64 // total time in log store writes
	Dispatches, Dispatched       float64 // leader dispatches and their entries
	SlowWrites10, SlowWrites50   float64 // log writes of ≥ 10 ms, ≥ 50 ms
	CommitMs, Commits            float64 // per entry: dispatch to commit
	SlowCommits50                float64 // entries committed ≥ 50 ms after dispatch
	HasBatching                  bool
	Server                       []summary // the in-process server's own timings
}

func diffSnaps(name string, a, b snap, units int, unitName string) phaseStats {
	d := func(k string) (float64, bool) {
		x, ok1 := a.m[k]
		y, ok2 := b.m[k]
		return y - x, ok1 && ok2
	}
	p := phaseStats{Name: name, Dur: b.at.Sub(a.at), Units: units, UnitName: unitName, CPU: b.cpu - a.cpu}
	var ok [8]bool
	p.Applied, ok[0] = d("rackboot_raft_applied_index")
	p.LastIndex, ok[1] = d("rackboot_raft_last_index")
	p.Commands, ok[2] = d("rackboot_raft_commands_applied_total")
	p.HasRaft = ok[0] && ok[1] && ok[2]
	p.Writes, ok[3] = d(metricName(keyLogsPerBatch) + "_count")
	p.WrittenEntries, ok[4] = d(metricName(keyLogsPerBatch) + "_sum")
	p.WriteMs, ok[5] = d(metricName(keyStoreLogs) + "_sum")
	p.Dispatches, ok[6] = d(metricName(keyDispatch) + "_count")
	p.Dispatched, ok[7] = d(metricName(keyDispatchLogs) + "_sum")
	p.HasBatching = ok[3] && ok[4] && ok[5] && ok[6] && ok[7]
	p.SlowWrites10, _ = d(metricName(keyStoreLogs) + "_ge10")
	p.SlowWrites50, _ = d(metricName(keyStoreLogs) + "_ge50")
	p.CommitMs, _ = d(metricName(keyCommitTime) + "_sum")
	p.Commits, _ = d(metricName(keyCommitTime) + "_count")
	p.SlowCommits50, _ = d(metricName(keyCommitTime) + "_ge50")
	return p
}

// profile is a CPU profile being taken from the server.
type profile struct{ done chan struct{} }

func (p *profile) wait() {
	if p != nil {
		<-p.done
	}
}

// startProfile takes a CPU profile of length d from the server's
// /debug/pprof (the in-process server's, or rackbootd's
// server.pprof_listen) into dir/<name>.cpu.pprof (nothing when dir is
// empty or the server serves no profiles).
func startProfile(ctx context.Context, dir string, srv *server, name string, d time.Duration) *profile {
	if dir == "" || srv.profBase() == "" {
		return nil
	}
	p := &profile{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		secs := max(1, int(d/time.Second))
		if err := fetchTo(ctx, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", srv.profBase(), secs),
			filepath.Join(dir, name+".cpu.pprof")); err != nil {
			fmt.Fprintln(os.Stderr, "agents: profile:", err)
		}
	}()
	return p
}

// saveProfiles saves the server's heap, block and mutex profiles (the
// last two cumulative since start) into dir/<name>.<kind>.pprof.
func saveProfiles(ctx context.Context, dir string, srv *server, name string) {
	if dir == "" || srv.profBase() == "" {
		return
	}
	for _, kind := range []string{"heap", "block", "mutex"} {
		if err := fetchTo(ctx, srv.profBase()+"/debug/pprof/"+kind, filepath.Join(dir, name+"."+kind+".pprof")); err != nil {
			fmt.Fprintf(os.Stderr, "agents: %s profile: %v\n", kind, err)
		}
	}
}

// saveGoroutines saves every goroutine's stack of the server into
// dir/<name>.goroutines.txt.
func saveGoroutines(ctx context.Context, dir string, srv *server, name string) {
	if dir == "" || srv.profBase() == "" {
		return
	}
	if err := fetchTo(ctx, srv.profBase()+"/debug/pprof/goroutine?debug=2", filepath.Join(dir, name+".goroutines.txt")); err != nil {
		fmt.Fprintln(os.Stderr, "agents: goroutine dump:", err)
	}
}

func fetchTo(ctx context.Context, url, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
