package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// targetRackRatio is the target: registration on a rack of three
// at ≥ 0.8× the rate of a single appliance.
const targetRackRatio = 0.8

// rackResult is what a -rack run measured.
type rackResult struct {
	opts        options
	args        []string
	started     time.Time
	niceApplied bool
	runs        []stormRun
}

// benchRack runs the -rack comparison and writes its report.
func benchRack(ctx context.Context, o options, work string, niceApplied bool, stdout io.Writer) error {
	res := &rackResult{opts: o, args: os.Args, started: time.Now(), niceApplied: niceApplied}
	runs, err := rackStorm(ctx, o, work)
	if err != nil {
		return err
	}
	res.runs = runs
	return writeReport(res.markdown(), o.out, stdout)
}

// median is the median rate of the runs on racks of n appliances with
// CPU budget cpus.
func (r *rackResult) median(n int, cpus float64) float64 {
	var rates []float64
	for _, run := range r.runs {
		if run.appliances == n && run.cpus == cpus {
			rates = append(rates, run.rate())
		}
	}
	if len(rates) == 0 {
		return 0
	}
	slices.Sort(rates)
	if len(rates)%2 == 1 {
		return rates[len(rates)/2]
	}
	return (rates[len(rates)/2-1] + rates[len(rates)/2]) / 2
}

func (r *rackResult) markdown() string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("## Registration storm: %d appliances against 1 (bench/agents -rack)\n\n", r.opts.rack)
	w("Command: `go run ./bench/agents %s` (from the repository root, as root)  \n", strings.Join(r.args[1:], " "))
	w("Date: %s  \n", r.started.UTC().Format("2006-01-02 15:04 UTC"))
	w("Machine: %s  \n", machine())
	w("Server: `%s` (tree at commit %s)", r.opts.bin, gitRev())
	if r.opts.nice != 0 && r.niceApplied {
		w(", the simulator and every appliance at nice %d", r.opts.nice)
	}
	w("  \n\n")
	w("Each rack is built by testbed/ha as `make bench-ha` builds it: every appliance a rackbootd with `[cluster]` in its own network namespace on one bridge, "+
		"the service address on the leader. The rack of one is the same set-up with one voter, so the difference is replication: on %d appliances every "+
		"raft entry is fsync'd on a majority before it is applied. %d simulated agents (the real agent's protocol client, %d connections) in the client "+
		"namespace register through the service address as discovered hosts do: register (201), first instructions (an inventory step), inventory reply (204). "+
		"After the storm the hosts with an inventory are counted through a follower's own address. Racks alternate, %d round(s) each.\n\n",
		r.opts.rack, r.opts.hosts, r.opts.concurrency, r.opts.rounds)
	if r.opts.applianceCPU > 0 {
		w("Two CPU set-ups: first every appliance gets %g CPU of its own (a cgroup CFS quota per rackbootd), as if each were its own machine, "+
			"which is how a rack is built; the simulator has what is left. Then all processes share this machine's %d CPUs, so the %d-appliance rack "+
			"also pays for its followers' work on the leader's cores. The disk is this machine's in both.\n\n", r.opts.applianceCPU, runtime.NumCPU(), r.opts.rack)
	}
	w("| CPUs per appliance | appliances | round | time | hosts/s | failed | with inventory | register p50 / p99 | instructions p50 / p99 | reply p50 / p99 |\n")
	w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, run := range r.runs {
		w("| %s | %d | %d | %.1f s | %.0f | %d | %d (via %s) | %s / %s | %s / %s | %s / %s |\n",
			cpuLabel(run.cpus), run.appliances, run.round, run.elapsed.Seconds(), run.rate(), run.failed, run.withInventory, run.countedVia,
			ms(run.register.P50), ms(run.register.P99), ms(run.instr.P50), ms(run.instr.P99), ms(run.reply.P50), ms(run.reply.P99))
	}
	for _, run := range r.runs {
		if run.withInventory != run.hosts-run.failed {
			w("\n**%d appliances, round %d: %d hosts registered, but %d have an inventory through %s.**\n",
				run.appliances, run.round, run.hosts-run.failed, run.withInventory, run.countedVia)
		}
	}
	w("\n")
	for _, cpus := range budgetModes(r.opts.applianceCPU) {
		one, many := r.median(1, cpus), r.median(r.opts.rack, cpus)
		met := "not met"
		if one > 0 && many/one >= targetRackRatio {
			met = "met"
		}
		w("- %s: median rate, %d appliances ÷ 1: %.0f ÷ %.0f hosts/s = **%s×** (target ≥ %.1f×: %s)\n",
			cpuLabel(cpus), r.opts.rack, many, one, ratio(many, one), targetRackRatio, met)
	}
	return b.String()
}

// cpuLabel names a CPU budget.
func cpuLabel(cpus float64) string {
	if cpus <= 0 {
		return "shared"
	}
	return fmt.Sprintf("%g of its own", cpus)
}
