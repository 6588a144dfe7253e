package main

import (
	"github.com/rackboot/rackboot/cmd/rackbootd/internal/metrics"
	"github.com/rackboot/rackboot/engine"
)

// loopStats are the controllers' pass and error counters, which outlive
// each leadership's controllers.
type loopStats struct {
	install, bmh, monitor engine.LoopStats
}

// newMetrics builds the daemon's registry over the services it runs: the
// reload outcomes, raft and the replicated state, DHCP and TFTP when they
// are on, and the controllers (docs/metrics.md).
func (d *daemon) newMetrics() *metrics.Registry {
	m := metrics.New(version)
	m.MustRegister(metrics.NewReloads(metrics.Reloads{
		OK: d.reloadsOK.Load, Failed: d.reloadsFail.Load, LastFailed: d.lastReloadFailed.Load,
	})...)
	m.MustRegister(
		metrics.NewLoops(
			metrics.Loop{Name: "install", Stats: &d.loops.install},
			metrics.Loop{Name: "bmh", Stats: &d.loops.bmh},
			metrics.Loop{Name: "host_monitor", Stats: &d.loops.monitor},
		),
	)
	if d.store != nil {
		m.MustRegister(metrics.NewRaft(d.store), metrics.NewState(d.store))
	}
	if d.dhcp != nil {
		m.MustRegister(metrics.NewDHCP(d.dhcp, nil))
	}
	if d.tftp != nil {
		m.MustRegister(metrics.NewTFTP(d.tftp))
	}
	return m
}
