// Command agents is the agent-scale benchmark of rackbootd: it starts one
// rackbootd on loopback with a fresh data directory, creates an infra-env
// through the admin API, takes the agent token from the infra-env's
// discovery.ign exactly as a discovered host does, and then runs N
// simulated agents (default 10,000) that speak the agent protocol with the
// real agent's client (cmd/rackboot-agent/protocol, so the same paths,
// headers and bodies as rackboot-agent):
//
//  1. registration: each host registers (POST .../hosts, 201), asks for
//     instructions (GET .../instructions, 200, an inventory step) and
//     posts a realistic inventory reply (POST .../instructions, 204), with
//     bounded concurrency; the time until every host is registered with
//     its inventory is measured, with per-request latency percentiles;
//  2. steady polling: every host polls its instructions once per interval
//     (upstream's 60 s), spread evenly, for a bounded duration; latency
//     percentiles are measured.
//
// Throughout, the server's RSS (VmRSS/VmHWM) and CPU time are sampled from
// /proc, and the raft counters are read from its /metrics before and after
// each phase (commit rate, entries per command, entries per log write).
// The polling phase is also reported in 10 s windows next to the machine's
// CPU and I/O pressure (/proc/pressure), so that a slow window can be told
// apart from a machine busy with other work; the in-process server adds
// its own handler and store timings (timing.go).
//
// The server is the rackbootd binary when it serves the API, or (-server
// inprocess, and -server auto when the binary does not serve the API yet)
// this program re-executed as a server process that wires engine/api over a
// cluster.Store in the data directory, the same packages rackbootd uses;
// that server also serves /debug/pprof for profiling (-pprof).
//
// With -rack N (as root) it runs neither phase but the registration storm
// on racks built by testbed/ha: a rack of one appliance and a rack of N,
// alternating for -rounds rounds, each appliance a rackbootd with [cluster]
// in its own network namespace and the agents registering through the
// service address from the client namespace. It does so twice: first with
// every appliance held to -appliance-cpu CPUs of its own (a cgroup v1 CFS
// quota, as if each were its own machine), then with all of them sharing
// the machine's CPUs. The report gives the N ÷ 1 ratio of the median rates
// of each (make bench-agents-rack).
//
// The result is a markdown section (command, date, machine, targets met or
// not) printed to stdout and written to -out. Everything runs on loopback,
// bounded in hosts and time, and the server is stopped at the end, also on
// failure or Ctrl-C.
//
//	go run ./bench/agents -hosts 10000 -poll 3m -out /tmp/agents.md
package main
