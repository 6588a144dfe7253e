// Package dhcpbench drives Kea's perfdhcp against a DHCPv4 server and finds
// the highest DORA rate the server sustains with fewer than 1% of exchanges
// lost. It parses perfdhcp's report and its per-exchange timestamps (-x t)
// into rates, drop ratios and latency percentiles.
package dhcpbench
