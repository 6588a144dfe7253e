// Command ha benchmarks rackboot's high availability on the testbed/ha
// rack (bin/rackbootd processes in network namespaces on one bridge):
//
//   - replicated writes: PATCHes of infra-envs through the service address
//     (and spread over the appliances' own addresses, which forward to the
//     leader), throughput and p50/p99 latency, 3 appliances against 1;
//   - DHCP: perfdhcp (Kea's, relay mode, full DORA) against the 3-appliance
//     rack, a 1-appliance rack and kea-dhcp4 (memfile, persist) run in an
//     appliance's namespace on the same bridge, the best sustained rate of
//     each;
//   - failover: over N kills (SIGKILL) of the leader, the time until a
//     broadcast DHCP DISCOVER is answered again and until the API accepts
//     a write through the service address again, median and p90.
//
// It needs root and bin/rackbootd (make build); it writes a Markdown
// report (default bench/ha/last.md) for docs/benchmarks.md. Run it with
// make bench-ha, or: go run ./bench/ha -out bench/ha/last.md
package main
