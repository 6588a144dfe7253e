package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rackboot/rackboot/bench/internal/harness"
	"github.com/rackboot/rackboot/bench/internal/peers"
	"github.com/rackboot/rackboot/bench/internal/proc"
	"github.com/rackboot/rackboot/bench/internal/report"
	"github.com/rackboot/rackboot/bench/internal/tftpbench"
	"github.com/rackboot/rackboot/bench/internal/topo"
)

// errIncomplete is returned when a probe or load run did not complete.
var errIncomplete = errors.New("transfer did not complete")

// tftpWindow is the windowsize the second TFTP load asks for.
const tftpWindow = 8

type starter func(ctx context.Context, dir string) (*proc.Proc, error)

func benchTFTP(ctx context.Context, pair *topo.Pair, o options, rb rackbootd, a assets, rep *report.Report) error {
	l := tftpbench.Load{
		Server: topo.ServerIP + ":69", File: "ipxe.efi", Size: a.ipxeSize,
		Workers: 50, PerWorker: 10, BlkSize: 1468,
	}
	if o.quick {
		l.PerWorker = 3
	}
	rep.TFTPCfg = l
	hpa := func(ctx context.Context, dir string) (*proc.Proc, error) {
		return peers.TFTPDHPA(ctx, pair.Server, dir, a.tftpRoot)
	}
	rbd := func(ctx context.Context, dir string) (*proc.Proc, error) {
		return rackbootdConfig(rb, a, "off").Start(ctx, pair.Server, dir)
	}
	// The same load asking for RFC 7440 windows, as recent UEFI firmware
	// does: tftpd-hpa ignores the option, rackbootd grants it.
	lw := l
	lw.Window = tftpWindow
	servers := []struct {
		name  string
		start starter
		load  tftpbench.Load
	}{
		{"tftpd-hpa", hpa, l},
		{"rackbootd", rbd, l},
		{fmt.Sprintf("tftpd-hpa, windowsize %d asked", tftpWindow), hpa, lw},
		{fmt.Sprintf("rackbootd, windowsize %d asked", tftpWindow), rbd, lw},
	}
	rows := make([]report.TFTPRow, len(servers))
	var errs []error
	for round := 0; round < o.rounds(); round++ {
		for i, s := range servers {
			row := &rows[i]
			row.Server = s.name
			if strings.HasPrefix(s.name, "rackbootd") && rb.missing != "" {
				row.Note = "not measured"
				continue
			}
			if row.Note != "" {
				continue
			}
			res, cpu, err := tftpOne(ctx, pair, o, s.name, s.start, s.load)
			if err != nil {
				row.Note = "failed: " + err.Error()
				errs = append(errs, fmt.Errorf("tftp %s: %w", s.name, err))
				continue
			}
			row.Runs = append(row.Runs, res)
			if res.MiBps() > row.Result.MiBps() || row.Result.Seconds == 0 {
				row.Result, row.CPU = res, cpu
			}
		}
	}
	rep.TFTP = append(rep.TFTP, rows...)
	return errors.Join(errs...)
}

func tftpOne(ctx context.Context, pair *topo.Pair, o options, name string, start starter, l tftpbench.Load) (tftpbench.Result, time.Duration, error) {
	dir, err := o.Subdir("tftp-" + strings.Fields(name)[0])
	if err != nil {
		return tftpbench.Result{}, 0, err
	}
	o.gate(ctx)
	p, err := start(ctx, dir)
	if err != nil {
		return tftpbench.Result{}, 0, err
	}
	defer p.Stop()
	probe := l
	probe.Workers, probe.PerWorker = 1, 1
	if err := p.WaitReady(ctx, 20*time.Second, func(ctx context.Context) error {
		var r tftpbench.Result
		if err := harness.Spawn(ctx, pair.Client, &r, tftpArgs(probe, 3*time.Second)...); err != nil {
			return err
		}
		if r.Transfers != 1 {
			return fmt.Errorf("%w: %s", errIncomplete, r.FirstError)
		}
		return nil
	}); err != nil {
		return tftpbench.Result{}, 0, err
	}
	var r tftpbench.Result
	cpu0 := p.CPU()
	err = harness.Spawn(ctx, pair.Client, &r, tftpArgs(l, 5*time.Minute)...)
	cpu := p.CPU() - cpu0
	fmt.Printf("tftp %s: %d transfers, %d errors, %.2f s, %.1f MiB/s, %.1f transfers/s, server CPU %v\n",
		name, r.Transfers, r.Errors, r.Seconds, r.MiBps(), r.PerSecond(), cpu)
	return r, cpu, err
}

func tftpArgs(l tftpbench.Load, timeout time.Duration) []string {
	return []string{"load-tftp", "-server", l.Server, "-file", l.File,
		"-size", strconv.FormatInt(l.Size, 10), "-workers", strconv.Itoa(l.Workers),
		"-per", strconv.Itoa(l.PerWorker), "-blksize", strconv.Itoa(l.BlkSize), "-window", strconv.Itoa(l.Window),
		"-timeout", timeout.String()}
}
