package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rackboot/rackboot/engine"
)

// StateReader is what the state collector reads: engine.Store's Read.
type StateReader interface {
	Read(fn func(m *engine.Model))
}

type stateCollector struct {
	st                           StateReader
	hosts, clusters, bmhs, infra *prometheus.Desc
}

// NewState returns the collector of the replicated state's objects by
// state, counted at scrape time from this node's copy.
func NewState(st StateReader) prometheus.Collector {
	return &stateCollector{
		st:       st,
		hosts:    prometheus.NewDesc(namespace+"_hosts", "Hosts by status (discovering, known, installing, installed, error, ...).", []string{"status"}, nil),
		clusters: prometheus.NewDesc(namespace+"_clusters", "Clusters by status (pending-for-input, ready, installing, installed, error, ...).", []string{"status"}, nil),
		bmhs: prometheus.NewDesc(namespace+"_baremetalhosts", "BareMetalHosts by provisioning state and operational status.",
			[]string{"provisioning_state", "operational_status"}, nil),
		infra: prometheus.NewDesc(namespace+"_infraenvs", "Infra-envs defined.", nil, nil),
	}
}

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.hosts
	ch <- c.clusters
	ch <- c.bmhs
	ch <- c.infra
}

type bmhKey struct{ prov, op string }

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	hosts, clusters, bmhs := map[string]int{}, map[string]int{}, map[bmhKey]int{}
	infra := 0
	c.st.Read(func(m *engine.Model) {
		for h := range m.Hosts() {
			hosts[orNone(h.Status)]++
		}
		for cl := range m.Clusters() {
			clusters[orNone(cl.Status)]++
		}
		for b := range m.BareMetalHosts() {
			bmhs[bmhKey{orNone(b.Status.ProvisioningState), orNone(b.Status.OperationalStatus)}]++
		}
		for range m.InfraEnvs() {
			infra++
		}
	})
	for s, n := range hosts {
		ch <- prometheus.MustNewConstMetric(c.hosts, prometheus.GaugeValue, float64(n), s)
	}
	for s, n := range clusters {
		ch <- prometheus.MustNewConstMetric(c.clusters, prometheus.GaugeValue, float64(n), s)
	}
	for k, n := range bmhs {
		ch <- prometheus.MustNewConstMetric(c.bmhs, prometheus.GaugeValue, float64(n), k.prov, k.op)
	}
	ch <- prometheus.MustNewConstMetric(c.infra, prometheus.GaugeValue, float64(infra))
}

// orNone names an empty state, which a label value would hide.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
