package main

import (
	"fmt"
	"net/http"
	"strconv"
)

// metric is one Prometheus sample with its help text.
type metric struct {
	name, help, kind string
	value            uint64
}

// serveMetrics writes the DHCP and TFTP counters and the reload outcomes
// in the Prometheus text format (version 0.0.4).
func (d *daemon) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	fmt.Fprintf(w, "# HELP rackboot_build_info The running rackbootd version.\n# TYPE rackboot_build_info gauge\nrackboot_build_info{version=%s} 1\n", strconv.Quote(version))
	for _, m := range d.metrics() {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n%s %d\n", m.name, m.help, m.name, m.kind, m.name, m.value)
	}
}

func (d *daemon) metrics() []metric {
	failed := uint64(0)
	if d.lastReloadFailed.Load() {
		failed = 1
	}
	ms := []metric{
		{"rackboot_config_reloads_total", "Configuration reloads applied.", "counter", d.reloadsOK.Load()},
		{"rackboot_config_reload_failures_total", "Configuration reloads refused (the running configuration stayed).", "counter", d.reloadsFail.Load()},
		{"rackboot_config_last_reload_failed", "1 when the last reload was refused.", "gauge", failed},
	}
	if d.store != nil {
		s := d.store.Stats()
		ms = append(ms,
			metric{"rackboot_raft_last_index", "Index of the last entry of the raft log.", "gauge", s.LastIndex},
			metric{"rackboot_raft_applied_index", "Index of the last raft entry applied to the state.", "gauge", s.AppliedIndex},
			metric{"rackboot_raft_commands_applied_total", "Commands applied to the state since start (a batch of leases is one).", "counter", s.Commands},
		)
	}
	if d.dhcp != nil {
		s := d.dhcp.Stats()
		ms = append(ms,
			metric{"rackboot_dhcp_received_total", "DHCP packets read.", "counter", s.Received},
			metric{"rackboot_dhcp_replied_total", "DHCP replies sent.", "counter", s.Replied},
			metric{"rackboot_dhcp_dropped_malformed_total", "DHCP packets dropped as undecodable or invalid.", "counter", s.DroppedMalformed},
			metric{"rackboot_dhcp_dropped_other_total", "Valid DHCP packets not answered for another reason.", "counter", s.DroppedOther},
			metric{"rackboot_dhcp_exhausted_total", "DISCOVERs left unanswered for want of a free address.", "counter", s.Exhausted},
			metric{"rackboot_dhcp_offers_total", "DHCPOFFERs sent.", "counter", s.Offers},
			metric{"rackboot_dhcp_acks_total", "DHCPACKs sent.", "counter", s.Acks},
			metric{"rackboot_dhcp_naks_total", "DHCPNAKs sent.", "counter", s.Naks},
			metric{"rackboot_dhcp_releases_total", "DHCPRELEASEs handled.", "counter", s.Releases},
			metric{"rackboot_dhcp_declines_total", "DHCPDECLINEs handled.", "counter", s.Declines},
		)
	}
	if d.tftp != nil {
		s := d.tftp.Stats()
		ms = append(ms,
			metric{"rackboot_tftp_transfers_started_total", "TFTP read requests accepted.", "counter", s.Started},
			metric{"rackboot_tftp_transfers_completed_total", "TFTP transfers acknowledged to the last block.", "counter", s.Completed},
			metric{"rackboot_tftp_transfers_failed_total", "Accepted TFTP transfers that did not complete.", "counter", s.Failed},
			metric{"rackboot_tftp_requests_rejected_total", "TFTP requests refused with an error packet.", "counter", s.Rejected},
			metric{"rackboot_tftp_malformed_total", "Packets on the TFTP port that are not a request.", "counter", s.Malformed},
			metric{"rackboot_tftp_size_probes_total", "Option negotiations a client ended before the data (UEFI PXE asks the size first).", "counter", s.Probes},
			metric{"rackboot_tftp_sent_bytes_total", "File bytes sent over TFTP.", "counter", s.Bytes},
		)
	}
	return ms
}
