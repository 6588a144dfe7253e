// Package httpbench downloads many URLs concurrently over HTTP, discarding
// the bodies and checking their sizes, and reports aggregate throughput.
package httpbench
