package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rackboot/rackboot/bench/internal/harness"
	"github.com/rackboot/rackboot/bench/internal/httpbench"
	"github.com/rackboot/rackboot/bench/internal/peers"
	"github.com/rackboot/rackboot/bench/internal/proc"
	"github.com/rackboot/rackboot/bench/internal/report"
	"github.com/rackboot/rackboot/bench/internal/topo"
)

const httpClients = 200

// macURLs are the per-host initrd URLs of httpClients distinct MACs.
func macURLs() []string {
	urls := make([]string, httpClients)
	for i := range urls {
		urls[i] = fmt.Sprintf("http://%s:%d/boot/52-54-00-bb-%02x-%02x/initrd",
			topo.ServerIP, peers.RackbootdHTTPPort, i>>8, i&0xff)
	}
	return urls
}

func benchHTTP(ctx context.Context, pair *topo.Pair, o options, rb rackbootd, a assets, rep *report.Report) error {
	rounds := 1
	rep.HTTPCfg = fmt.Sprintf("%d concurrent clients, each downloading once (bodies discarded, every size checked against\n"+
		"Content-Length). rackbootd: `GET /boot/<mac>/initrd` for %d distinct MACs, one default profile whose\n"+
		"base initrd is %d MiB of random data, so each body is that initrd plus the host's gzip cpio with\n"+
		"`config.ign`. nginx (`sendfile on`, `worker_processes auto`, no access log): the same URL for every\n"+
		"client, a static file of exactly the size of rackbootd's per-host initrd. RSS is rackbootd's\n"+
		"VmRSS/VmHWM from /proc/PID/status, before the load (after one warm-up download) and after it.",
		httpClients, httpClients, a.initrdSize>>20)
	rb0 := report.HTTPRow{Server: "rackbootd"}
	ng := report.HTTPRow{Server: "nginx"}
	if rb.missing != "" {
		rb0.Note = "not measured"
	}
	var errs []error
	fail := func(row *report.HTTPRow, err error) {
		row.Note = "failed: " + err.Error()
		errs = append(errs, fmt.Errorf("http %s: %w", row.Server, err))
	}
	for round := 0; round < o.rounds(); round++ {
		if rb0.Note == "" {
			run, err := httpRackbootd(ctx, pair, o, rb, a, rounds)
			if err != nil {
				fail(&rb0, err)
			} else {
				mergeHTTP(&rb0, run)
			}
		}
		if ng.Note == "" {
			if ng.BodyBytes == 0 {
				ng.BodyBytes = a.initrdSize
				if rb0.BodyBytes > 0 {
					ng.BodyBytes = rb0.BodyBytes
				}
			}
			run, err := httpNginx(ctx, pair, o, ng.BodyBytes, rounds)
			if err != nil {
				fail(&ng, err)
			} else {
				mergeHTTP(&ng, run)
			}
		}
	}
	rep.HTTP = append(rep.HTTP, rb0, ng)
	return errors.Join(errs...)
}

// mergeHTTP adds one run to row: the best throughput and the worst memory
// growth are kept.
func mergeHTTP(row *report.HTTPRow, run report.HTTPRow) {
	row.Runs = append(row.Runs, run.Result)
	row.BodyBytes = run.BodyBytes
	if run.Result.MiBps() > row.Result.MiBps() || row.Result.Seconds == 0 {
		row.Result, row.CPU = run.Result, run.CPU
	}
	if run.HWM-run.RSSBefore > row.HWM-row.RSSBefore {
		row.RSSBefore, row.RSSAfter, row.HWM = run.RSSBefore, run.RSSAfter, run.HWM
	}
}

func httpRackbootd(ctx context.Context, pair *topo.Pair, o options, rb rackbootd, a assets, rounds int) (report.HTTPRow, error) {
	row := report.HTTPRow{Server: "rackbootd"}
	dir, err := o.Subdir("http-rackbootd")
	if err != nil {
		return row, err
	}
	p, err := rackbootdConfig(rb, a, "off").Start(ctx, pair.Server, dir)
	if err != nil {
		return row, err
	}
	defer p.Stop()
	urls := macURLs()
	if row.BodyBytes, err = httpWarmup(ctx, pair, p, dir, urls[0]); err != nil {
		return row, err
	}
	before, err := p.Memory()
	if err != nil {
		return row, err
	}
	row.RSSBefore = before.RSSKiB
	o.gate(ctx)
	cpu0 := p.CPU()
	row.Result, err = httpLoad(ctx, pair, dir, urls, 0, rounds)
	row.CPU = p.CPU() - cpu0
	after, merr := p.Memory()
	row.RSSAfter, row.HWM = after.RSSKiB, after.HWMKiB
	printHTTP(row)
	return row, errors.Join(err, merr)
}

func httpNginx(ctx context.Context, pair *topo.Pair, o options, size int64, rounds int) (report.HTTPRow, error) {
	row := report.HTTPRow{Server: "nginx", BodyBytes: size}
	dir, err := o.Subdir("http-nginx")
	if err != nil {
		return row, err
	}
	root := filepath.Join(dir, "www")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return row, err
	}
	if err := randomFile(filepath.Join(root, "initrd.img"), size); err != nil {
		return row, err
	}
	p, err := peers.Nginx(ctx, pair.Server, dir, root)
	if err != nil {
		return row, err
	}
	defer p.Stop()
	url := fmt.Sprintf("http://%s:%d/initrd.img", topo.ServerIP, peers.NginxPort)
	if _, err := httpWarmup(ctx, pair, p, dir, url); err != nil {
		return row, err
	}
	o.gate(ctx)
	urls := make([]string, httpClients)
	for i := range urls {
		urls[i] = url
	}
	cpu0 := p.CPU()
	row.Result, err = httpLoad(ctx, pair, dir, urls, size, rounds)
	row.CPU = p.CPU() - cpu0
	printHTTP(row)
	return row, err
}

// httpWarmup waits until url downloads completely once and returns its size.
func httpWarmup(ctx context.Context, pair *topo.Pair, p *proc.Proc, dir, url string) (int64, error) {
	var size int64
	err := p.WaitReady(ctx, 30*time.Second, func(ctx context.Context) error {
		r, err := httpLoad(ctx, pair, dir, []string{url}, 0, 1)
		if err != nil {
			return err
		}
		if r.Downloads != 1 {
			return fmt.Errorf("%w: %s", errIncomplete, r.FirstError)
		}
		size = r.Bytes
		return nil
	})
	return size, err
}

func httpLoad(ctx context.Context, pair *topo.Pair, dir string, urls []string, size int64, rounds int) (httpbench.Result, error) {
	var r httpbench.Result
	args, err := httpbench.Load{URLs: urls, Size: size, Rounds: rounds}.Args(dir, 5*time.Minute)
	if err != nil {
		return r, err
	}
	err = harness.Spawn(ctx, pair.Client, &r, args...)
	return r, err
}

func printHTTP(row report.HTTPRow) {
	r := row.Result
	fmt.Printf("http %s: %d downloads, %d errors, %.2f s, %.1f MiB/s, per download p50 %.2f s p90 %.2f s max %.2f s, server CPU %v, RSS %d→%d KiB (peak %d)\n",
		row.Server, r.Downloads, r.Errors, r.Seconds, r.MiBps(), r.P50, r.P90, r.Max, row.CPU, row.RSSBefore, row.RSSAfter, row.HWM)
}
