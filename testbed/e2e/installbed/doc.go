// Package installbed is the testbed of an installation: one network
// namespace with a bridge and a tap per VM, rackbootd running there with a
// testbed config (full DHCP with a reservation per node, the discovery image,
// and an image set whose disk image is the testbed OS of testbed/osimage and
// whose role Ignition comes from the user configs in roles/ or from a
// stand-in openshift-install that also writes credentials), rackbootctl
// run inside the namespace as the user would, and UEFI VMs with a virtio
// disk that boot from the network, then from their disk.
//
// `make demo` (testbed/cmd/demo) and the installation tests of testbed/e2e
// drive it. Start needs root (netns.Available) and QEMU with OVMF; it
// starts nothing that outlives Close.
package installbed
