package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// report is the Markdown section for docs/benchmarks.md.
type report struct {
	started  time.Time
	opts     options
	writes   []writeRow
	dhcp     []dhcpRow
	failover failoverResult
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func (r *report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## High availability (bench/ha)\n\n")
	fmt.Fprintf(&b, "`%s` (`go run ./bench/ha`, root) on %s UTC with %s; %d CPUs, load average at the start %s. "+
		"Every appliance is a bin/rackbootd process in its own network namespace on one bridge "+
		"(testbed/ha); the load generators run in a client namespace on the same bridge. All processes share "+
		"this machine's CPUs, so a 3-appliance rack also pays for three daemons on the same cores.\n\n",
		r.opts.command, r.started.UTC().Format("2006-01-02 15:04"), binVersion(r.opts.bin), runtime.NumCPU(), loadavg())
	if len(r.writes) > 0 {
		r.writesTable(&b)
	}
	if len(r.dhcp) > 0 {
		r.dhcpTable(&b)
	}
	if r.failover.kills > 0 && len(r.failover.api) > 0 {
		r.failoverTable(&b)
	}
	return b.String()
}

func (r *report) writesTable(b *strings.Builder) {
	fmt.Fprintf(b, "### Replicated writes\n\n%d API clients, each PATCHing its own infra-env (`additional_ntp_sources`) "+
		"in a loop for %s over kept-alive connections; a write counts when it is answered 201, i.e. committed by a "+
		"majority and applied. Raft batches what arrives together (hashicorp/raft BatchApplyCh, up to 64 entries "+
		"per AppendEntries); every entry is fsync'd by raft-boltdb on each voter.\n\n", r.opts.clients, r.opts.writeFor)
	fmt.Fprintf(b, "| run | writes/s | p50 | p99 | max | failed |\n|---|---:|---:|---:|---:|---:|\n")
	var one float64
	for _, w := range r.writes {
		if one == 0 {
			one = w.rate()
		}
		fmt.Fprintf(b, "| %s | %.0f | %s | %s | %s | %d |\n", w.name, w.rate(), ms(w.p50), ms(w.p99), ms(w.max), w.failed)
	}
	if len(r.writes) > 1 && one > 0 {
		fmt.Fprintf(b, "\n3 appliances ÷ 1 appliance (service address): **%.2f×**\n", r.writes[1].rate()/one)
	}
	b.WriteString("\n")
}

func (r *report) dhcpTable(b *strings.Builder) {
	fmt.Fprintf(b, "### DHCP\n\nperfdhcp `-4 -l eth0 -r RATE -R %d -p %d -W 500000 -s 42 -x t` from the client namespace "+
		"(relay mode: answers by unicast); the rate doubles from 1,000/s until a run loses ≥ 1%% or completes < 90%% "+
		"of the rate (a failed step runs once more and the better run counts), then bisects twice. rackbootd: full mode, pool %s–%s, leases committed through raft before the ACK "+
		"(on 3 appliances: replicated to a majority). Kea: kea-dhcp4 with a memfile lease file (persist), run in the "+
		"1-appliance rack's namespace with rackbootd stopped. State is kept across a server's steps.\n\n",
		perfClients, int(r.opts.period.Seconds()), benchStart, benchEnd)
	fmt.Fprintf(b, "| server | best DORA/s | drop | DO p50/p99 | RA p50/p99 | steps (rate: DORA/s) |\n|---|---:|---:|---:|---:|---|\n")
	var kea float64
	for _, d := range r.dhcp {
		if strings.HasPrefix(d.name, "kea") {
			kea = d.best.exchanges
		}
	}
	for _, d := range r.dhcp {
		var steps []string
		for _, s := range d.steps {
			mark := ""
			if !s.ok {
				mark = "✗"
			}
			steps = append(steps, fmt.Sprintf("%d: %.0f%s", s.rate, s.exchanges, mark))
		}
		fmt.Fprintf(b, "| %s | %.0f | %.2f%% | %s / %s | %s / %s | %s |\n", d.name, d.best.exchanges, d.best.dropPct,
			ms(d.best.do.P50), ms(d.best.do.P99), ms(d.best.ra.P50), ms(d.best.ra.P99), strings.Join(steps, ", "))
	}
	if kea > 0 && r.dhcp[0].best.exchanges > 0 {
		fmt.Fprintf(b, "\nrackbootd on 3 appliances ÷ Kea: **%.2f×** (target ≥ 0.8×)\n", r.dhcp[0].best.exchanges/kea)
	}
	b.WriteString("\n")
}

func (r *report) failoverTable(b *strings.Builder) {
	f := r.failover
	d, a := sorted(f.dhcp), sorted(f.api)
	fmt.Fprintf(b, "### Failover\n\n%d times: the leader of 3 appliances is killed (SIGKILL); from the kill, a probe "+
		"broadcasts a DHCP DISCOVER (relay form, a new MAC each time) every 20 ms until one is answered, and another "+
		"PATCHes an infra-env through the service address every 20 ms (1 s timeout) until one is answered 201. The "+
		"killed appliance is then restarted and catches up before the next kill. hashicorp/raft in a rack: heartbeat "+
		"and election timeouts 1 s.\n\n", len(a))
	fmt.Fprintf(b, "| until | median | p90 | min | max |\n|---|---:|---:|---:|---:|\n")
	fmt.Fprintf(b, "| DHCP answers again | %s | %s | %s | %s |\n", ms(percentile(d, 50)), ms(percentile(d, 90)), ms(d[0]), ms(d[len(d)-1]))
	fmt.Fprintf(b, "| the API accepts writes again | %s | %s | %s | %s |\n", ms(percentile(a, 50)), ms(percentile(a, 90)), ms(a[0]), ms(a[len(a)-1]))
	b.WriteString("\nTarget: < 3 s median.\n\n")
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// binVersion is what `rackbootd version` says.
func binVersion(bin string) string {
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		return bin
	}
	return "`" + strings.TrimSpace(string(out)) + "`"
}
