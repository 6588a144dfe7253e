package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rackboot/rackboot/tftp"
)

// TFTPSource is what the TFTP collector reads: *tftp.Server.
type TFTPSource interface{ Stats() tftp.Stats }

type tftpCollector struct {
	src      TFTPSource
	counters []tftpMetric
	active   *prometheus.Desc
}

type tftpMetric struct {
	desc *prometheus.Desc
	get  func(tftp.Stats) uint64
}

// NewTFTP returns the collector of a TFTP server's counters.
func NewTFTP(src TFTPSource) prometheus.Collector {
	c := &tftpCollector{src: src}
	counter := func(name, help string, get func(tftp.Stats) uint64) {
		c.counters = append(c.counters, tftpMetric{desc(tftpName(name), help), get})
	}
	counter("transfers_started_total", "TFTP read requests accepted.", func(s tftp.Stats) uint64 { return s.Started })
	counter("transfers_completed_total", "TFTP transfers acknowledged to the last block.", func(s tftp.Stats) uint64 { return s.Completed })
	counter("transfers_failed_total", "Accepted TFTP transfers that did not complete (timeout, client error).", func(s tftp.Stats) uint64 { return s.Failed })
	counter("requests_rejected_total", "TFTP requests refused with an error packet (write, bad path, missing file, busy).", func(s tftp.Stats) uint64 { return s.Rejected })
	counter("malformed_total", "Packets on the TFTP port that are not a request.", func(s tftp.Stats) uint64 { return s.Malformed })
	counter("size_probes_total", "Option negotiations a client ended before the data (UEFI PXE asks the size first).", func(s tftp.Stats) uint64 { return s.Probes })
	counter("duplicate_requests_total", "Requests repeating a transfer in progress (same client, port and file), answered by that transfer.", func(s tftp.Stats) uint64 { return s.Duplicates })
	counter("sent_bytes_total", "File bytes sent over TFTP.", func(s tftp.Stats) uint64 { return s.Bytes })
	c.active = desc(tftpName("transfers_active"), "TFTP transfers in progress now.")
	return c
}

func tftpName(name string) string { return prometheus.BuildFQName(namespace, "tftp", name) }

func (c *tftpCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, k := range c.counters {
		ch <- k.desc
	}
	ch <- c.active
}

func (c *tftpCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.Stats()
	for _, k := range c.counters {
		ch <- prometheus.MustNewConstMetric(k.desc, prometheus.CounterValue, float64(k.get(s)))
	}
	ch <- prometheus.MustNewConstMetric(c.active, prometheus.GaugeValue, float64(s.Active))
}
