// Command diskimage measures disk-image streaming for the install step:
// one server sends the same disk image (256 MiB of random data by default)
// to 50 simulated installing hosts at once, each a Go HTTP client that
// streams the body through sha256 as rackboot-agent's install step does,
// and checks the sum. rackbootd sends the image as the disk image of an
// [[image_set]] (GET /images/bench/disk.img, the install step's route) or,
// with -route kernel, as the kernel of a boot profile (GET
// /boot/<mac>/kernel, one MAC per host). rackbootd (its boot HTTP server, the same
// http.ServeContent + sendfile path that serves boot artifacts) and nginx
// (sendfile on) serve the same file in the same run, in turns; the report
// gives each one's aggregate MB/s, server CPU time and the ratio
// rackbootd ÷ nginx (target ≥ 0.8).
//
// It uses bench/'s topology: servers in one network namespace, the load
// generator (this binary re-executed as bench/internal/httpbench's load-http
// subcommand) in another, joined by a veth pair; nothing leaves the pair.
// Needs root. bench/run.sh
// runs it (`./bench/run.sh diskimage` alone) and keeps its last report,
// bench/diskimage/last.md, in docs/benchmarks.md.
package main
