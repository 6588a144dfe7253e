// Package ha is the high-availability testbed: a rack of rackbootd
// processes (bin/rackbootd, built by make build), each in its own network
// namespace with its own data directory and eth0 veth'd onto one bridge,
// the bridge the tests' VMs and DHCP clients sit on too.
//
// The rack's addresses: the service address 10.99.0.1/24 (held by the
// leader), appliance i at 10.99.0.11+i, an API client namespace at
// 10.99.0.250, the DHCP range 10.99.0.100–10.99.0.200. Every address lives
// inside namespaces the rack created.
//
// A Node can be killed (SIGKILL), stopped, restarted and cut off from the
// bridge (its bridge-side veth end set down, a pulled cable) and restored.
// Who holds the service address is read from the namespaces' interfaces,
// independently of what the daemons say about themselves.
//
// The tests of this package (RACKBOOT_E2E=1, root) kill, cut off and
// restart appliances while DHCP clients and API clients use the rack, and
// check what clients saw, with a linearizability check of the API history
// (github.com/anishathalye/porcupine).
package ha
