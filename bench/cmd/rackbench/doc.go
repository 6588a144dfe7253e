// Command rackbench runs rackboot's benchmarks side by side with their peers
// (Kea and dnsmasq for DHCP, tftpd-hpa for TFTP, nginx for HTTP) over a veth
// pair between two network namespaces, prints the numbers and writes them as
// Markdown (docs/benchmarks.md). It needs root. `make bench` runs it through
// bench/run.sh.
//
// The subcommands load-tftp and load-http are the load generators; rackbench
// re-executes itself with them inside the client namespace.
package main
