package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rackboot/rackboot/dhcp"
)

// DHCPSource is what the DHCP collector reads: *dhcp.Server.
type DHCPSource interface {
	Stats() dhcp.Stats
	Usage(now time.Time) []dhcp.RangeUsage
}

type dhcpCollector struct {
	src DHCPSource
	now func() time.Time

	counters              []dhcpCounter
	requests              *prometheus.Desc
	size, leased, decline *prometheus.Desc
}

type dhcpCounter struct {
	desc *prometheus.Desc
	get  func(dhcp.Stats) uint64
}

// NewDHCP returns the collector of a DHCP server's counters and pool use;
// now is the clock that decides which leases are active (time.Now when
// nil).
func NewDHCP(src DHCPSource, now func() time.Time) prometheus.Collector {
	if now == nil {
		now = time.Now
	}
	c := &dhcpCollector{src: src, now: now}
	counter := func(name, help string, get func(dhcp.Stats) uint64) {
		c.counters = append(c.counters, dhcpCounter{desc(dhcpName(name), help), get})
	}
	counter("received_total", "DHCP packets read.", func(s dhcp.Stats) uint64 { return s.Received })
	counter("replied_total", "DHCP replies sent.", func(s dhcp.Stats) uint64 { return s.Replied })
	counter("dropped_malformed_total", "DHCP packets dropped as undecodable or invalid.", func(s dhcp.Stats) uint64 { return s.DroppedMalformed })
	counter("dropped_other_total", "Valid DHCP packets not answered for another reason (relay, lease store or socket failure).", func(s dhcp.Stats) uint64 { return s.DroppedOther })
	counter("exhausted_total", "DISCOVERs left unanswered for want of a free address.", func(s dhcp.Stats) uint64 { return s.Exhausted })
	counter("offers_total", "DHCPOFFERs sent.", func(s dhcp.Stats) uint64 { return s.Offers })
	counter("acks_total", "DHCPACKs sent.", func(s dhcp.Stats) uint64 { return s.Acks })
	counter("naks_total", "DHCPNAKs sent.", func(s dhcp.Stats) uint64 { return s.Naks })
	counter("releases_total", "DHCPRELEASEs handled.", func(s dhcp.Stats) uint64 { return s.Releases })
	counter("declines_total", "DHCPDECLINEs handled.", func(s dhcp.Stats) uint64 { return s.Declines })
	c.requests = prometheus.NewDesc(dhcpName("requests_total"),
		"DHCP packets read, by message type and outcome (replied, ignored, malformed, exhausted, relay, error).",
		[]string{"type", "outcome"}, nil)
	rangeLabel := []string{"range"}
	c.size = prometheus.NewDesc(dhcpName("pool_addresses"), "Addresses in a configured range (first-last).", rangeLabel, nil)
	c.leased = prometheus.NewDesc(dhcpName("pool_leased_addresses"), "Addresses of a range with an active lease.", rangeLabel, nil)
	c.decline = prometheus.NewDesc(dhcpName("pool_declined_addresses"), "Addresses of a range blocked after a client declined them.", rangeLabel, nil)
	return c
}

func dhcpName(name string) string { return prometheus.BuildFQName(namespace, "dhcp", name) }

func desc(fq, help string) *prometheus.Desc { return prometheus.NewDesc(fq, help, nil, nil) }

func (c *dhcpCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, k := range c.counters {
		ch <- k.desc
	}
	ch <- c.requests
	ch <- c.size
	ch <- c.leased
	ch <- c.decline
}

func (c *dhcpCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.Stats()
	for _, k := range c.counters {
		ch <- prometheus.MustNewConstMetric(k.desc, prometheus.CounterValue, float64(k.get(s)))
	}
	for _, r := range s.Requests {
		ch <- prometheus.MustNewConstMetric(c.requests, prometheus.CounterValue, float64(r.N), r.Type, r.Outcome.String())
	}
	for _, u := range c.src.Usage(c.now()) {
		name := u.Start.String() + "-" + u.End.String()
		ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(u.Size), name)
		ch <- prometheus.MustNewConstMetric(c.leased, prometheus.GaugeValue, float64(u.Leased), name)
		ch <- prometheus.MustNewConstMetric(c.decline, prometheus.GaugeValue, float64(u.Declined), name)
	}
}
