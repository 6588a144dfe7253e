// Package qemu runs the testbed's virtual machines: QEMU under TCG with one
// virtio-net NIC on a tap device, booting from the network with SeaBIOS and
// its iPXE option ROM (BIOS) or with OVMF's own PXE client (UEFI).
//
// Config.Disk attaches a raw disk image as a virtio-blk disk, and
// Config.Boot orders it against the NIC: network only (the default),
// disk only, network then disk (the disk when the network boot fails), or
// disk then network (the network while the disk is empty). A guest reboot
// or SystemReset boots again in that order unless NoReboot is set.
//
// A VM's serial console goes to a file that tests read with WaitFor (a
// regexp, polled until it matches, the VM exits, or the context ends) and
// dump with ConsoleTail when they fail. A QMP socket gives power control
// (QMP, Quit, SystemReset) for later BMC emulation.
//
// QEMU runs inside a network namespace when Start is given one (anything
// with a Command method, such as *netns.NS), so its tap device is the one
// the namespace holds.
package qemu
