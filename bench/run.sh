#!/bin/sh
# Entry point of `make bench` (which has already run `make build`): builds the
# benchmark harness and runs every benchmark against bin/rackbootd and its
# peers, printing the tables and rewriting docs/benchmarks.md.
# Needs root (network namespaces). Extra arguments go to rackbench, e.g.
#   ./bench/run.sh -quick -out /tmp/bench.md     # a short trial run
#   ./bench/run.sh -only dhcp                    # one benchmark
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
	echo "bench/run.sh: the benchmarks build network namespaces and need root" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The disk-image streaming benchmark of the install step (bench/diskimage)
# writes its section to bench/diskimage/last.md; `./bench/run.sh diskimage
# [flags]` runs it alone, a full run runs it after the others.
diskimage() {
	${GO:-go} build -o "$tmp/diskimage" ./bench/diskimage
	nice -n -10 "$tmp/diskimage" -rackbootd bin/rackbootd -out bench/diskimage/last.md "$@"
}
if [ "${1:-}" = diskimage ]; then
	shift
	diskimage -command "bench/run.sh diskimage${*:+ $*}" "$@"
	exit
fi
${GO:-go} build -o "$tmp/rackbench" ./bench/cmd/rackbench
# Raised priority (inherited by every server and client it starts, all
# alike) keeps other work on the machine from skewing one server's numbers.
nice -n -10 "$tmp/rackbench" -rackbootd bin/rackbootd -out docs/benchmarks.md -command "make bench" "$@"
if [ $# -eq 0 ]; then
	diskimage -command "make bench"
	printf '\n' >>docs/benchmarks.md
	cat bench/diskimage/last.md >>docs/benchmarks.md
fi
# Benchmarks that run on their own keep their last report at the end of
# docs/benchmarks.md: the agents of the discovery engine (make bench-agents),
# the live rootfs (make bench-rootfs), the .raw.xz install (make bench-xz),
# the registration storm on a rack (make bench-agents-rack), the Kubernetes
# API at 10,000 Agents and what a kube-apiserver would need (make
# bench-kube), the rack of three
# appliances (make bench-ha) and the installation times
# the install tests record (make e2e-install e2e-full).
if [ $# -eq 0 ]; then
	for report in bench/diskimage/last-rootfs.md bench/xzinstall/last.md bench/agents/last.md bench/agents/last-rack.md \
		bench/agents/last-kube.md bench/agents/kube-profile.md bench/agents/kube-apiserver.md bench/ha/last.md \
		testbed/e2e/installbed/last.md; do
		[ -f "$report" ] || continue
		printf '\n' >>docs/benchmarks.md
		cat "$report" >>docs/benchmarks.md
	done
fi
