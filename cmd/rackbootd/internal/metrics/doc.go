// Package metrics is rackbootd's Prometheus exposition: one registry per
// daemon (never the client library's global one), the HTTP middleware that
// counts requests by route pattern, and collectors that read the services'
// own counters (dhcp.Stats, tftp.Stats, cluster.Stats, engine.LoopStats)
// and the replicated state at scrape time.
//
// The protocol packages stay free of Prometheus: each exposes plain
// counters, and the collectors here turn them into metrics. The names and
// what to alert on are documented in docs/metrics.md.
package metrics
