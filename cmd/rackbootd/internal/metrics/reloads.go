package metrics

import "github.com/prometheus/client_golang/prometheus"

// Reloads are the daemon's configuration reload outcomes, read at scrape
// time.
type Reloads struct {
	OK, Failed func() uint64 // reloads applied, refused
	LastFailed func() bool   // whether the last one was refused
}

// NewReloads returns the collectors of the reload outcomes.
func NewReloads(r Reloads) []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: namespace, Name: "config_reloads_total",
			Help: "Configuration reloads applied."}, func() float64 { return float64(r.OK()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: namespace, Name: "config_reload_failures_total",
			Help: "Configuration reloads refused (the running configuration stayed)."}, func() float64 { return float64(r.Failed()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: "config_last_reload_failed",
			Help: "1 when the last reload was refused."}, func() float64 {
			if r.LastFailed() {
				return 1
			}
			return 0
		}),
	}
}
