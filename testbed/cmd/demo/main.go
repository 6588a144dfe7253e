// Command demo is `make demo`: rackboot's main job on one machine. As root
// it builds the testbed images (the CoreOS-shaped live image set and the
// installable OS disk image, published with a stream.json by
// testbed/coreosimage), makes a private network namespace with a bridge and
// a tap per VM, starts bin/rackbootd there with a testbed config (full
// DHCP, and an image set taking that stream with coreos_stream, booting its
// live images and installing its metal raw.xz with the user's role
// Ignition configs), and then does what a user does with
// rackbootctl: creates a cluster of three control-plane nodes and one
// worker (DEMO=sno or -sno: a single node), powers the VMs on (OVMF, an
// empty virtio disk tried before the network; two at a time), approves the
// hosts, installs, and shows a live progress bar per host until the
// cluster is installed. It ends with the host table, where the time went,
// and the elapsed time, and removes everything it made.
//
//	sudo go run ./testbed/cmd/demo [-sno] [-rackbootd bin/rackbootd] [-keep]
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
	flag.BoolVar(&o.sno, "sno", os.Getenv("DEMO") == "sno", "install a single-node cluster (default from DEMO=sno)")
	flag.StringVar(&o.rackbootd, "rackbootd", "bin/rackbootd", "the rackbootd binary to run (rackbootctl is taken from the same directory)")
	flag.IntVar(&o.wave, "wave", 2, "how many VMs boot at once (each TCG VM takes most of a core while it boots)")
	flag.BoolVar(&o.keep, "keep", false, "keep the work directory (config, logs, VM disks and consoles) at the end")
	flag.StringVar(&o.firmware, "firmware", "uefi", "VM firmware: uefi (the installed OS boots under OVMF only; bios is accepted and ignored)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, o)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}
