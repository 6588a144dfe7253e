// Package report renders benchmark results as the Markdown of
// docs/benchmarks.md: the command, the date, the machine, the package
// versions, then one table per benchmark with ratios against the peers.
package report
