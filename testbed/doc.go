// Package testbed is the home of rackboot's test bench; it holds no code of
// its own. Its sub-packages build what the end-to-end tests run on:
//
//   - netns: network namespaces, a bridge, taps and veth pairs, so every
//     address a test uses lives inside a namespace it created;
//   - image: the test boot image (Debian's kernel and a busybox initrd that
//     prints its DHCP lease and its /config.ign on the serial console);
//   - qemu: QEMU VMs under TCG that network-boot with SeaBIOS + iPXE or
//     OVMF, read through their serial console;
//   - e2e: the boot tests (make e2e-boot), VMs booting from rackbootd;
//   - cmd/mkimage: builds the image from the command line.
//
// README.md in this directory says how to run each piece by hand.
package testbed
