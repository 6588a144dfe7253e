package metrics

import (
	"net/http"
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace prefixes every rackboot metric.
const namespace = "rackboot"

// Registry is one daemon's metrics: its own Prometheus registry with the
// Go runtime, process and build metrics, and the HTTP request metrics.
type Registry struct {
	reg  *prometheus.Registry
	http *httpMetrics
}

// New returns a registry holding the Go runtime and process collectors,
// rackboot_build_info for version and the HTTP request metrics.
func New(version string) *Registry {
	reg := prometheus.NewRegistry()
	r := &Registry{reg: reg, http: newHTTPMetrics()}
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace, Name: "build_info", Help: "The running rackbootd version (always 1).",
		ConstLabels: prometheus.Labels{"version": version, "goversion": runtime.Version()},
	})
	build.Set(1)
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		build,
	)
	r.http.register(reg)
	return r
}

// MustRegister adds collectors; it panics on a name registered twice,
// which is a programming error of the wiring.
func (r *Registry) MustRegister(cs ...prometheus.Collector) { r.reg.MustRegister(cs...) }

// Gatherer is the registry, for tests and promhttp.
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }

// Handler serves the registry in the Prometheus text format (or
// OpenMetrics/protobuf when the scraper asks), counting its own scrapes.
func (r *Registry) Handler() http.Handler {
	return promhttp.InstrumentMetricHandler(r.reg, promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{
		Registry:          r.reg,
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: true,
	}))
}
