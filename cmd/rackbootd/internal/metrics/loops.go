package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rackboot/rackboot/engine"
)

// Loop is one controller's counters under its name (install, bmh,
// host_monitor).
type Loop struct {
	Name  string
	Stats *engine.LoopStats
}

type loopCollector struct {
	loops          []Loop
	passes, errors *prometheus.Desc
}

// NewLoops returns the collector of the controllers' passes and errors.
// The controllers run on the leader only: a follower's counters stay
// where they were when it last led.
func NewLoops(loops ...Loop) prometheus.Collector {
	label := []string{"controller"}
	return &loopCollector{
		loops:  loops,
		passes: prometheus.NewDesc(prometheus.BuildFQName(namespace, "controller", "passes_total"), "Passes a controller made over the state.", label, nil),
		errors: prometheus.NewDesc(prometheus.BuildFQName(namespace, "controller", "errors_total"),
			"Failures a controller met (a failed pass, cluster step or BMC operation).", label, nil),
	}
}

func (c *loopCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.passes
	ch <- c.errors
}

func (c *loopCollector) Collect(ch chan<- prometheus.Metric) {
	for _, l := range c.loops {
		ch <- prometheus.MustNewConstMetric(c.passes, prometheus.CounterValue, float64(l.Stats.Passes()), l.Name)
		ch <- prometheus.MustNewConstMetric(c.errors, prometheus.CounterValue, float64(l.Stats.Errors()), l.Name)
	}
}
