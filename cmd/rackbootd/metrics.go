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
	m.MustRegister(
		metrics.CounterFunc("config_reloads_total", "Configuration reloads applied.",
			func() float64 { return float64(d.reloadsOK.Load()) }),
		metrics.CounterFunc("config_reload_failures_total", "Configuration reloads refused (the running configuration stayed).",
			func() float64 { return float64(d.reloadsFail.Load()) }),
		metrics.GaugeFunc("config_last_reload_failed", "1 when the last reload was refused.", func() float64 {
			if d.lastReloadFailed.Load() {
				return 1
			}
			return 0
		}),
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
