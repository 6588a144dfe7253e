// Package clustertest starts rack clusters of real cluster.Store nodes in
// a test process: real TCP on 127.0.0.1, mutual TLS with a fresh rack CA,
// hashicorp/raft's default timeouts. For tests of the packages built on
// package cluster (the CLI, the daemon's wiring).
package clustertest
