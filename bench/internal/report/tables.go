package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/rackboot/rackboot/bench/internal/dhcpbench"
)

func writeDHCP(b *strings.Builder, r Report) {
	o := r.DHCPCfg
	b.WriteString("\n## DHCP: DORA exchanges per second at < 1% drops\n\n")
	fmt.Fprintf(b, "perfdhcp (`-4 -l <veth> -r RATE -R %d -p %g -W 500000 -s 42 -x t`) against each server,\n",
		o.Clients, o.Period.Seconds())
	fmt.Fprintf(b, "pool %s, leases written to disk by every server. The rate starts at %d/s and doubles\n",
		"10.98.1.0–10.98.255.254", o.StartRate)
	b.WriteString("until a run loses ≥ 1% of exchanges (or completes < 90% of the asked rate), then bisects;\n")
	if o.Retry {
		b.WriteString("a failed step is run a second time before it counts as failed. ")
	}
	b.WriteString("Servers take turns step by step;\n")
	b.WriteString("each step starts the server afresh with an empty lease file. DORA/s = ACKs received ÷ run\n")
	b.WriteString("length. Latencies are percentiles over every answered packet of the best step (perfdhcp's\n")
	b.WriteString("own timestamps, `-x t`): DO = DISCOVER→OFFER, RA = REQUEST→ACK, in ms. CPU/DORA is the\n")
	b.WriteString("server's own CPU time (user + system, from its cgroup) per completed exchange in that step: it does\n")
	b.WriteString("not depend on what else the machine is doing.\n\n")
	b.WriteString("How durable a lease is when the ACK leaves differs (checked with `strace -c`): rackbootd\n")
	b.WriteString("commits it to its raft log (hashicorp/raft on raft-boltdb under `data_dir`: a bbolt\n")
	b.WriteString("transaction ended by `fdatasync`) before answering, leases that arrive together sharing one\n")
	b.WriteString("entry, so it survives a power cut; dnsmasq rewrites its whole lease file and `fsync`s it after\n")
	b.WriteString("each change; Kea's memfile (`persist: true`) `write`s the lease to its CSV file without any\n")
	b.WriteString("sync, so it survives a crash of Kea but not of the machine.\n\n")
	b.WriteString("| server | DORA/s | drops | DO p50 / p90 / p99 / max | RA p50 / p90 / p99 / max | CPU/DORA | vs Kea |\n")
	b.WriteString("|---|---:|---:|---|---|---:|---:|\n")
	kea := 0.0
	for _, row := range r.DHCP {
		if row.Result.Name == "kea-dhcp4" {
			kea = row.Result.Best.Exchanges
		}
	}
	for _, row := range r.DHCP {
		best := row.Result.Best
		if row.Note != "" || best.Rate == 0 {
			fmt.Fprintf(b, "| %s | – | – | – | – | – | %s |\n", row.Result.Name, cell(orDash(row.Note)))
			continue
		}
		fmt.Fprintf(b, "| %s | %.0f | %.2f%% | %s | %s | %s | %s |\n", row.Result.Name, best.Exchanges,
			best.DropPct, pct(best.DO), pct(best.RA), us(best.CPUPerExchange()), ratio(best.Exchanges, kea))
	}
	b.WriteString("\nEvery step of each search, in order:\n\n")
	b.WriteString("| server | asked/s | DORA/s | drops | RA p99 ms | CPU/DORA | sustained | machine busy |\n|---|---:|---:|---:|---:|---:|---|---|\n")
	for _, row := range r.DHCP {
		for _, s := range row.Result.Steps {
			fmt.Fprintf(b, "| %s | %d | %.0f | %.2f%% | %s | %s | %v | %s |\n", row.Result.Name, s.Rate, s.Exchanges,
				s.DropPct, ms(s.RA.P99), us(s.CPUPerExchange()), yes(s.OK), busyMark(s.Busy))
		}
	}
}

func us(d time.Duration) string {
	if d <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}

func secs(d time.Duration) string {
	if d <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func pct(p dhcpbench.Percentiles) string {
	return fmt.Sprintf("%s / %s / %s / %s", ms(p.P50), ms(p.P90), ms(p.P99), ms(p.Max))
}

// cell makes s safe for one Markdown table cell.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "|", "\\|")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func busyMark(busy bool) string {
	if busy {
		return "busy"
	}
	return ""
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "no sustained rate"
	}
	return s
}

func writeTFTP(b *strings.Builder, r Report) {
	c := r.TFTPCfg
	b.WriteString("\n## TFTP: concurrent fetches of ipxe.efi\n\n")
	fmt.Fprintf(b, "%d concurrent workers, each fetching `%s` (%d bytes) %d times in a row (RRQ with\n",
		c.Workers, c.File, c.Size, c.PerWorker)
	fmt.Fprintf(b, "blksize %d and tsize, lock-step ACKs, 1 s retransmit timeout; every transfer's size is checked).\n", c.BlkSize)
	b.WriteString("The rows \"windowsize N asked\" repeat the load with the RFC 7440 windowsize option in the request,\n")
	b.WriteString("as recent UEFI firmware sends it: tftpd-hpa 5.2 ignores it and stays lock-step, rackbootd grants it\n")
	b.WriteString("(the client ACKs every Nth block). The target compares the lock-step rows.\n\n")
	b.WriteString("Each server ran this load several times, taking turns with the other; the row is its best run,\n")
	b.WriteString("the last column lists every run's MiB/s.\n\n")
	b.WriteString("Server CPU is the server's own CPU time (user + system, from its cgroup, forked children\n")
	b.WriteString("included) during the best run.\n\n")
	b.WriteString("| server | transfers | errors | seconds | MiB/s | transfers/s | server CPU | vs tftpd-hpa | runs (MiB/s) |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	peer, peerW := 0.0, 0.0
	for _, row := range r.TFTP {
		if row.Server == "tftpd-hpa" && row.Note == "" {
			peer = row.Result.MiBps()
		}
		if strings.HasPrefix(row.Server, "tftpd-hpa,") && row.Note == "" {
			peerW = row.Result.MiBps()
		}
	}
	for _, row := range r.TFTP {
		if row.Note != "" {
			fmt.Fprintf(b, "| %s | – | – | – | – | – | – | %s | – |\n", row.Server, cell(row.Note))
			continue
		}
		res := row.Result
		var runs []string
		for _, r := range row.Runs {
			runs = append(runs, fmt.Sprintf("%.1f", r.MiBps()))
		}
		base := peer
		if strings.Contains(row.Server, ",") {
			base = peerW
		}
		fmt.Fprintf(b, "| %s | %d | %d | %.2f | %.1f | %.1f | %s | %s | %s |\n", row.Server, res.Transfers, res.Errors,
			res.Seconds, res.MiBps(), res.PerSecond(), secs(row.CPU), ratio(res.MiBps(), base), strings.Join(runs, ", "))
	}
	for _, row := range r.TFTP {
		if row.Result.FirstError != "" {
			fmt.Fprintf(b, "\n%s's first error: `%s`\n", row.Server, row.Result.FirstError)
		}
	}
}

func writeHTTP(b *strings.Builder, r Report) {
	b.WriteString("\n## HTTP: concurrent downloads of per-host initrds\n\n")
	b.WriteString(r.HTTPCfg + "\n\n")
	b.WriteString("Each server ran this load several times, taking turns with the other; the row is its best run,\n")
	b.WriteString("the runs column lists every run's MiB/s, and the memory columns are from rackbootd's run with the\n")
	b.WriteString("largest growth. Server CPU is the server's CPU time (user + system, nginx's workers included)\n")
	b.WriteString("during the best run.\n\n")
	b.WriteString("| server | downloads | errors | bytes each | seconds | MiB/s | per download p50 / p90 / max | server CPU | vs nginx | runs (MiB/s) | RSS before | RSS after | peak RSS (VmHWM) |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---|---:|---:|---|---:|---:|---:|\n")
	peer := 0.0
	for _, row := range r.HTTP {
		if row.Server == "nginx" && row.Note == "" {
			peer = row.Result.MiBps()
		}
	}
	for _, row := range r.HTTP {
		if row.Note != "" {
			fmt.Fprintf(b, "| %s | – | – | – | – | – | – | – | %s | – | – | – | – |\n", row.Server, cell(row.Note))
			continue
		}
		res := row.Result
		var runs []string
		for _, r := range row.Runs {
			runs = append(runs, fmt.Sprintf("%.0f", r.MiBps()))
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %.2f | %.1f | %.2f / %.2f / %.2f s | %s | %s | %s | %s | %s | %s |\n", row.Server, res.Downloads,
			res.Errors, row.BodyBytes, res.Seconds, res.MiBps(), res.P50, res.P90, res.Max, secs(row.CPU), ratio(res.MiBps(), peer), strings.Join(runs, ", "),
			mib(row.RSSBefore), mib(row.RSSAfter), mib(row.HWM))
	}
	for _, row := range r.HTTP {
		if row.RSSBefore > 0 {
			fmt.Fprintf(b, "\n%s's resident memory grew by %s at its peak (VmHWM − VmRSS before the load).\n",
				row.Server, mib(row.HWM-row.RSSBefore))
		}
		if row.Result.FirstError != "" {
			fmt.Fprintf(b, "\n%s's first error: `%s`\n", row.Server, row.Result.FirstError)
		}
	}
}
