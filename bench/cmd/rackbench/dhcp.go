package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rackboot/rackboot/bench/internal/dhcpbench"
	"github.com/rackboot/rackboot/bench/internal/peers"
	"github.com/rackboot/rackboot/bench/internal/proc"
	"github.com/rackboot/rackboot/bench/internal/report"
	"github.com/rackboot/rackboot/bench/internal/topo"
)

func benchDHCP(ctx context.Context, pair *topo.Pair, o options, rb rackbootd, a assets, rep *report.Report) error {
	opts := dhcpbench.Options{
		Period:    o.period(5*time.Second, 2*time.Second),
		Clients:   50000,
		StartRate: 1000,
		MaxRate:   64000,
		Refine:    3,
		WorkDir:   o.Work,
		Retry:     !o.quick,
		Gate:      o.gate,
	}
	if o.quick {
		opts.Refine = 1
	}
	rep.DHCPCfg = opts
	targets := []dhcpbench.Target{
		{Name: "rackbootd", Start: func(ctx context.Context, dir string) (*proc.Proc, error) {
			return rackbootdConfig(rb, a, "full").Start(ctx, pair.Server, dir)
		}},
		{Name: "kea-dhcp4", Start: func(ctx context.Context, dir string) (*proc.Proc, error) {
			return peers.Kea(ctx, pair.Server, dir)
		}},
		{Name: "dnsmasq", Start: func(ctx context.Context, dir string) (*proc.Proc, error) {
			return peers.Dnsmasq(ctx, pair.Server, dir)
		}},
	}
	if rb.missing != "" {
		rep.DHCP = append(rep.DHCP, report.DHCPRow{Result: dhcpbench.Result{Name: "rackbootd"}, Note: "not measured"})
		targets = targets[1:]
	}
	results, errs := dhcpbench.SearchAll(ctx, pair, targets, opts)
	for i, res := range results {
		row := report.DHCPRow{Result: res}
		if errs[i] != nil {
			row.Note = "failed: " + errs[i].Error()
			errs[i] = fmt.Errorf("dhcp %s: %w", res.Name, errs[i])
		}
		rep.DHCP = append(rep.DHCP, row)
	}
	return errors.Join(errs...)
}

func rackbootdConfig(rb rackbootd, a assets, dhcpMode string) peers.Rackbootd {
	return peers.Rackbootd{
		Bin: rb.path, DHCPMode: dhcpMode, TFTPRoot: a.tftpRoot,
		Kernel: a.kernel, Initrd: a.initrd, Ignition: a.ignition,
	}
}
