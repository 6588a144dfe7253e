// Package netns builds the testbed's isolated networks: a named Linux network
// namespace with a bridge, and the taps and veth pairs that put QEMU VMs,
// DHCP clients and servers on it. Every address the tests use lives inside
// these namespaces, so test traffic never leaves the machine.
//
// It shells out to iproute2 (`ip`) and needs root; callers skip or fail
// (per their own policy) when Available reports false.
package netns
