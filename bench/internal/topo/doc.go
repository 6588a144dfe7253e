// Package topo builds the benchmark topology: two network namespaces, a
// server and a client, joined by one veth pair on a private /16. Every byte
// of benchmark traffic stays on that pair.
package topo
