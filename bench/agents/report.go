package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"time"
)

// quietPressure is the CPU pressure below which a polling window counts
// as the machine being nearly idle apart from this benchmark.
const quietPressure = 0.15

// Targets of the issue.
const (
	targetRegister = 60 * time.Second
	targetPollP99  = 50 * time.Millisecond
	targetRSS      = 1 << 30
)

// result is everything one run measured.
type result struct {
	opts           options
	args           []string
	started        time.Time
	serverKind     string
	sim            *simulator
	registerTime   time.Duration
	registerFailed int
	withInventory  int
	statuses       map[string]int
	polls          int
	phases         []phaseStats
	mem            memory
	memSamples     int
	niceApplied    bool
}

func (r *result) markdown() string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("## Agents: %d simulated hosts against one rackbootd\n\n", r.opts.hosts)
	w("Command: `go run ./bench/agents %s` (from the repository root)  \n", strings.Join(r.args[1:], " "))
	w("Date: %s  \n", r.started.UTC().Format("2006-01-02 15:04 UTC"))
	w("Machine: %s  \n", machine())
	w("Server: %s  \n", r.serverDesc())
	if r.opts.nice != 0 && r.niceApplied {
		w("Priority: the simulator and the server run at nice %d (other work on the machine runs at 0).  \n", r.opts.nice)
	}
	w("\n")
	r.targets(w)
	r.latencies(w)
	r.timeline(w)
	r.serverSide(w)
	r.raft(w)
	r.notes(w)
	return b.String()
}

func (r *result) serverDesc() string {
	rev := gitRev()
	if r.serverKind == kindBinary {
		version := "rackbootd"
		if out, err := exec.Command(r.opts.bin, "version").Output(); err == nil {
			version = strings.TrimSpace(string(out))
		}
		return fmt.Sprintf("`%s` (%s, tree at commit %s), data_dir on %s, DHCP and TFTP off, HTTP on 127.0.0.1", r.opts.bin, version, rev, tmpFS(r.opts.work))
	}
	return fmt.Sprintf("in-process (`-server inprocess`, commit %s): engine/api over cluster.Store (one-voter raft, raft-boltdb) in a child process, "+
		"with api.Monitor under engine.WhileLeader and info-level request logs to a file — the packages rackbootd wires; data_dir on %s", rev, tmpFS(r.opts.work))
}

func (r *result) targets(w func(string, ...any)) {
	met := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**not met**"
	}
	poll := r.sim.poll.summarize()
	w("| Target | Measured | |\n|---|---|---|\n")
	regOK := r.registerFailed == 0 && r.withInventory == r.opts.hosts && r.registerTime < targetRegister
	w("| %d hosts register and send inventory in < 60 s | %.1f s (%d/%d with inventory, %d failed) | %s |\n",
		r.opts.hosts, r.registerTime.Seconds(), r.withInventory, r.opts.hosts, r.registerFailed, met(regOK))
	if r.opts.pollFor > 0 {
		pollOK := poll.Count > 0 && poll.Errors == 0 && poll.P99 < targetPollP99
		w("| steady polling every %s: p99 < 50 ms | p99 %s (p50 %s, %d polls, %d errors, %.0f/s) | %s |\n",
			r.opts.interval, ms(poll.P99), ms(poll.P50), poll.Count, poll.Errors,
			float64(poll.Count)/r.opts.pollFor.Seconds(), met(pollOK))
	}
	w("| RSS < 1 GiB | peak VmRSS %s, VmHWM %s (%d samples) | %s |\n\n",
		mib(r.mem.RSS), mib(r.mem.HWM), r.memSamples, met(r.mem.HWM > 0 && r.mem.HWM < targetRSS))
}

func (r *result) latencies(w func(string, ...any)) {
	w("| Request | count | errors | p50 | p90 | p99 | p99.9 | max |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, rec := range []*recorder{r.sim.register, r.sim.instructions, r.sim.reply, r.sim.poll} {
		s := rec.summarize()
		if s.Count+s.Errors == 0 {
			continue
		}
		w("| %s | %d | %d | %s | %s | %s | %s | %s |\n", s.Name, s.Count, s.Errors, ms(s.P50), ms(s.P90), ms(s.P99), ms(s.P999), ms(s.Max))
	}
	w("\nHost statuses after registration: %s.", statusList(r.statuses))
	if n := r.sim.lateStarts.Load(); n > 0 {
		w(" %d polls started more than 1 s after their slot (client or server behind).", n)
	}
	w("\n\n")
}

// serverSide shows the in-process server's own timings per phase.
func (r *result) serverSide(w func(string, ...any)) {
	for _, p := range r.phases {
		if len(p.Server) == 0 {
			continue
		}
		w("Server side, %s (measured inside the server process):\n\n", p.Name)
		w("| | count | p50 | p90 | p99 | p99.9 | max |\n|---|---:|---:|---:|---:|---:|---:|\n")
		for _, s := range p.Server {
			w("| %s | %d | %s | %s | %s | %s | %s |\n", s.Name, s.Count, ms(s.P50), ms(s.P90), ms(s.P99), ms(s.P999), ms(s.Max))
		}
		w("\n")
	}
}

// timeline shows the polling phase in 10 s windows.
func (r *result) timeline(w func(string, ...any)) {
	if r.sim.timeline == nil {
		return
	}
	ws := r.sim.timeline.snapshot()
	if len(ws) == 0 {
		return
	}
	w("Steady polling in 10 s windows: polls started, of them ≥ 50 ms, the slowest; the machine's CPU (busy, stolen by the hypervisor, " +
		"time some task waited for a CPU, from /proc/pressure/cpu), time some task waited for I/O (/proc/pressure/io) and the server's CPU:\n\n" +
		"| from | polls | ≥ 50 ms | max | machine busy | steal | CPU pressure | I/O pressure | server CPU |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for i, win := range ws {
		c, ok := r.sim.timeline.cpu(i)
		if !ok {
			c = cpuWindow{Busy: "?", Steal: "?", Pressure: "?", Server: "?", IOPressure: "?"}
		}
		w("| %d s | %d | %d | %s | %s | %s | %s | %s | %s |\n", i*10, win.Count, win.Slow, ms(win.Max), c.Busy, c.Steal, c.Pressure, c.IOPressure, c.Server)
	}
	if q, n := r.sim.timeline.quiet(quietPressure); n > 0 {
		w("\nIn the %d windows with CPU pressure < %.0f%% (the machine nearly to itself): %d polls, p50 %s, p99 %s, max %s.\n",
			n, 100*quietPressure, q.Count, ms(q.P50), ms(q.P99), ms(q.Max))
	} else {
		w("\nNo window had CPU pressure < %.0f%%.\n", 100*quietPressure)
	}
	w("\n")
}

func (r *result) raft(w func(string, ...any)) {
	w("| Phase | time | entries committed | commits/s | commands | entries/command | commands per unit | log writes | entries/write | mean write | writes ≥ 10 / ≥ 50 ms | mean commit | commits ≥ 50 ms | server CPU |\n")
	w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range r.phases {
		secs := p.Dur.Seconds()
		row := fmt.Sprintf("| %s | %.1f s | ", p.Name, secs)
		if p.HasRaft {
			row += fmt.Sprintf("%.0f | %.0f | %.0f | %s | %s per %s | ", p.Applied, p.Applied/secs, p.Commands,
				ratio(p.LastIndex, p.Commands), ratio(p.Commands, float64(p.Units)), p.UnitName)
		} else {
			row += "n/a | n/a | n/a | n/a | n/a | "
		}
		if p.HasBatching {
			row += fmt.Sprintf("%.0f | %s | %s | %.0f / %.0f | %s | %.0f | ", p.Writes, ratio(p.WrittenEntries, p.Writes),
				msf(p.WriteMs, p.Writes), p.SlowWrites10, p.SlowWrites50, msf(p.CommitMs, p.Commits), p.SlowCommits50)
		} else {
			row += "n/a | n/a | n/a | n/a | n/a | n/a | "
		}
		row += fmt.Sprintf("%.1f s (%.0f%% of one CPU) |\n", p.CPU.Seconds(), 100*p.CPU.Seconds()/secs)
		w("%s", row)
	}
	w("\n")
}

func (r *result) notes(w func(string, ...any)) {
	w("Entries committed: the raft applied index's rise (`rackboot_raft_applied_index`); commands: " +
		"`rackboot_raft_commands_applied_total`; entries/command > 1 means raft's own entries (configuration, no-ops). ")
	w("Log writes and entries/write come from the samples hashicorp/raft-boltdb reports (`raft.boltdb.logsPerBatch`, " +
		"`raft.boltdb.storeLogs`): each write is one bolt transaction with its fsync, so entries/write is what raft's group commit " +
		"(the leader drains up to MaxAppendEntries = 64 queued applies into one write; `BatchApplyCh` buffers that queue) saves; " +
		"without it every entry would cost one write. Mean commit: raft's `raft.commitTime`, from the leader's dispatch of an entry to its commit. ")
	if r.serverKind == kindBinary {
		w("rackbootd's /metrics has the raft indexes and the command count but not raft's batching samples, and the binary has no " +
			"profiling endpoint: `-server inprocess` runs the same packages with both (and the server-side timings). ")
	}
	w("Latencies are measured by the client around each request (connection pool of %d, the real agent's protocol client and headers).\n",
		r.opts.concurrency)
}

func statusList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func msf(total, n float64) string {
	if n == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f ms", total/n)
}

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// machine describes this machine: CPU model and count, memory, kernel,
// Go version, load average.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := "?"
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			var kb uint64
			fmt.Sscan(f[1], &kb)
			mem = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
		}
	}
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	load, _ := os.ReadFile("/proc/loadavg")
	lf := strings.Fields(string(load))
	if len(lf) > 3 {
		lf = lf[:3]
	}
	return fmt.Sprintf("%d × %s, %s RAM, Linux %s, %s, load average at the end %s",
		runtime.NumCPU(), model, mem, strings.TrimSpace(string(kernel)), runtime.Version(), strings.Join(lf, " "))
}

func gitRev() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// tmpFS names the work directory (the temporary directory when "") and
// its file system type.
func tmpFS(work string) string {
	if work == "" {
		work = os.TempDir()
	}
	out, err := exec.Command("stat", "-f", "-c", "%T", work).Output()
	if err != nil {
		return work
	}
	return fmt.Sprintf("%s (%s)", work, strings.TrimSpace(string(out)))
}
