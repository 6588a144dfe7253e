// Package e2e holds the testbed's end-to-end boot tests: QEMU VMs (SeaBIOS
// with the iPXE option ROM, and OVMF with its own PXE client) network-boot
// the testbed image from rackbootd inside a network namespace, and the tests
// read what each VM was given (its lease, its config.ign) off its serial
// console.
//
// The tests run only with RACKBOOT_E2E=1 (`make e2e-boot`); then a missing
// prerequisite (root, qemu, firmware, bin/rackbootd) fails them instead of
// skipping them. The harness tests boot the same image from dnsmasq alone,
// which separates a broken testbed from a broken rackbootd.
//
// The discovery tests (`make e2e-discovery`, -run Discovery) boot three
// VMs with the discovery image: its agent registers with the engine's REST
// API, and the tests check the inventory, validations, approval and that
// the state outlives a restart of the engine, through the API as a user
// would.
package e2e
