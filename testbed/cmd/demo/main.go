// Command demo is `make demo`: it shows rackboot's main job on one machine.
// It builds the testbed boot image, makes a private network namespace with a
// bridge and a tap, starts bin/rackbootd there (DHCP full mode, TFTP, HTTP),
// network-boots a QEMU VM from it and streams the VM's serial console. The VM
// prints the lease it got and the config.ign rackboot appended to its initrd,
// then powers off; demo prints a summary and removes everything it made.
//
//	sudo go run ./testbed/cmd/demo [-firmware bios|uefi] [-rackbootd bin/rackbootd]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	var o options
	flag.StringVar(&o.firmware, "firmware", "bios", "VM firmware: bios (SeaBIOS + iPXE ROM) or uefi (OVMF's own PXE)")
	flag.StringVar(&o.rackbootd, "rackbootd", "bin/rackbootd", "the rackbootd binary to run")
	flag.StringVar(&o.mac, "mac", "52:54:00:00:00:01", "the VM's MAC address (reserved as demo-0 / 10.99.0.11)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}
