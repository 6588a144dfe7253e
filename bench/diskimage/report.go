package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/rackboot/rackboot/bench/internal/harness"
	"github.com/rackboot/rackboot/bench/internal/httpbench"
)

// run is one measured load against one server.
type run struct {
	httpbench.Result
	cpu time.Duration // server CPU time during the load
}

// row is one server's runs; the best (highest MB/s) is reported.
type row struct {
	server string
	best   run
	runs   []run
	note   string
}

func (r *row) add(x run) {
	r.runs = append(r.runs, x)
	if x.MBps() > r.best.MBps() {
		r.best = x
	}
}

// report is the Markdown section of docs/benchmarks.md.
type report struct {
	o        options
	img      image
	date     time.Time
	load     [2]string
	busyRuns int
	rows     []*row
}

func newReport(o options, img image) *report {
	return &report{o: o, img: img, date: time.Now().UTC(), load: [2]string{harness.LoadAvg()},
		rows: []*row{{server: "rackbootd"}, {server: "nginx"}}}
}

func (r *report) finish() { r.load[1] = harness.LoadAvg() }

// route says how rackbootd sent the image.
func (r *report) route() string {
	if r.o.route == routeRootfs {
		return "the URL that `coreos.live.rootfs_url` names in a host's iPXE script (`GET /images/bench/rootfs.img`: " +
			"the live rootfs of a CoreOS `[[image_set]]` declared with `live_iso` and `live_rootfs`, the AgentServiceConfig " +
			"`osImages` pair; the ISO is a CoreOS-shaped one built with xorriso), read from the script before each run"
	}
	if r.o.route == routeImage {
		return "`GET /images/bench/disk.img`, the install step's route (an `[[image_set]]` whose `disk_image` is the file; " +
			"`http.ServeContent` + `sendfile(2)`)"
	}
	return fmt.Sprintf("`GET /boot/<mac>/kernel` for %d distinct MACs whose profile's kernel is the disk image: its boot "+
		"HTTP server's file path (`http.ServeContent` + `sendfile(2)`), which `/images/{set}/disk.img` shares", r.o.clients)
}

// target is the ratio rackbootd must reach: the live rootfs (issue 11)
// is held to nginx's rate, the disk image to 0.8 of it.
func (r *report) target() float64 {
	if r.o.route == routeRootfs {
		return 1.0
	}
	return 0.8
}

// ratio is rackbootd's best MB/s over nginx's (0 when either is missing).
func (r *report) ratio() float64 {
	rb, ng := r.rows[0].best.MBps(), r.rows[1].best.MBps()
	if rb == 0 || ng == 0 {
		return 0
	}
	return rb / ng
}

func (r *report) write(w io.Writer) error {
	var b strings.Builder
	o := r.o
	if o.route == routeRootfs {
		fmt.Fprintf(&b, "## Live rootfs streaming: %d booting hosts at once\n\n", o.clients)
	} else {
		fmt.Fprintf(&b, "## Disk image streaming: %d installing hosts at once\n\n", o.clients)
	}
	fmt.Fprintf(&b, "`%s` (%s UTC; %d CPUs, load average %s at the start, %s at the end; %s).\n\n",
		o.Command, r.date.Format("2006-01-02 15:04"), runtime.NumCPU(), r.load[0], r.load[1], runtime.Version())
	hashing := "streams the body through sha256 and checks the sum, as rackboot-agent's install step does (without the disk write)"
	if !o.hash {
		hashing = "discards the body (no hashing)"
	}
	fmt.Fprintf(&b, "One %d MiB file of random data (sha256 %.12s…), one file served by both servers. "+
		"%d Go HTTP clients in the client namespace start at once, each downloading the image once; each client %s. "+
		"rackbootd: %s. "+
		"nginx (`sendfile on`, `worker_processes auto`, no access log): `GET /disk.img`. "+
		"%d alternating runs per server, each server started afresh and checked with one full download first; best run reported. "+
		"Server CPU is the server's cgroup CPU time during the run. Both servers and all clients share this machine's CPUs, "+
		"so the clients' hashing bounds both servers alike.\n\n",
		o.sizeMiB, r.img.sha256, o.clients, hashing, r.route(), o.rounds)
	b.WriteString("| Server | MB/s | Downloads | Errors | Seconds | Per download p50 / p90 / max (s) | Server CPU (s) | CPU s per GB |\n")
	b.WriteString("|---|---:|---:|---:|---:|---|---:|---:|\n")
	for _, row := range r.rows {
		x := row.best
		if len(row.runs) == 0 {
			fmt.Fprintf(&b, "| %s | – | – | – | – | – | – | – |\n", row.server)
			continue
		}
		perGB := 0.0
		if x.Bytes > 0 {
			perGB = x.cpu.Seconds() / (float64(x.Bytes) / 1e9)
		}
		fmt.Fprintf(&b, "| %s | %.0f | %d | %d | %.2f | %.2f / %.2f / %.2f | %.2f | %.3f |\n", row.server, x.MBps(),
			x.Downloads, x.Errors, x.Seconds, x.P50, x.P90, x.Max, x.cpu.Seconds(), perGB)
	}
	if ratio := r.ratio(); ratio > 0 {
		verdict := "met"
		if ratio < r.target() {
			verdict = "NOT met"
		}
		fmt.Fprintf(&b, "\nrackbootd ÷ nginx: **%.2f×** (target ≥ %.1f×: %s).\n", ratio, r.target(), verdict)
	}
	b.WriteString("\nAll runs (MB/s): ")
	var parts []string
	for _, row := range r.rows {
		var v []string
		for _, x := range row.runs {
			v = append(v, fmt.Sprintf("%.0f", x.MBps()))
		}
		s := row.server + " " + strings.Join(v, ", ")
		if row.note != "" {
			s += " (" + row.note + ")"
		}
		parts = append(parts, s)
	}
	b.WriteString(strings.Join(parts, "; ") + ".\n")
	if r.busyRuns > 0 {
		fmt.Fprintf(&b, "\n%d runs started while other processes kept the CPUs more than 30%% busy: the MB/s are noisy, "+
			"the CPU columns much less so.\n", r.busyRuns)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
