// Package httpbench downloads many URLs concurrently over HTTP and reports
// aggregate throughput and per-download durations. Every body's size is
// checked; with Load.SHA256 set, every body is also streamed through sha256
// and checked, as rackboot-agent's install step does with a disk image.
//
// A benchmark command runs the load inside its client namespace by
// re-executing itself with the Subcommand: Load.Args writes the arguments,
// RunArgs is the subcommand's side.
package httpbench
