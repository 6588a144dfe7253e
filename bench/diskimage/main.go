package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/rackboot/rackboot/bench/internal/harness"
	"github.com/rackboot/rackboot/bench/internal/httpbench"
	"github.com/rackboot/rackboot/bench/internal/topo"
)

type options struct {
	harness.Common
	sizeMiB int
	clients int
	rounds  int
	hash    bool
	route   string
}

func main() {
	loaders := map[string]harness.Loader{httpbench.Subcommand: func(ctx context.Context, args []string) (any, error) {
		return httpbench.RunArgs(ctx, args)
	}}
	os.Exit(harness.Main("diskimage", os.Args[1:], loaders, runAll))
}

func parseOptions(args []string) (options, error) {
	fs := flag.NewFlagSet("diskimage", flag.ContinueOnError)
	var o options
	o.Register(fs)
	fs.IntVar(&o.sizeMiB, "size", 256, "disk image size in MiB")
	fs.IntVar(&o.clients, "clients", 50, "simulated installing hosts downloading at once")
	fs.IntVar(&o.rounds, "rounds", 3, "runs per server, alternating; the best is reported")
	fs.BoolVar(&o.hash, "hash", true, "clients sha256 every body, as the install step does")
	fs.StringVar(&o.route, "route", routeImage, "how rackbootd sends the image: kernel (a boot profile's kernel), image (/images/{set}/disk.img of an [[image_set]]) or rootfs (the live rootfs of a CoreOS image set, the URL a host's iPXE script names)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.sizeMiB <= 0 || o.clients <= 0 || o.rounds <= 0 {
		return o, errors.New("-size, -clients and -rounds must be positive")
	}
	if o.route != routeKernel && o.route != routeImage && o.route != routeRootfs {
		return o, fmt.Errorf("-route %q: want %s, %s or %s", o.route, routeKernel, routeImage, routeRootfs)
	}
	o.DefaultCommand("diskimage", args)
	return o, nil
}

func runAll(ctx context.Context, args []string) error {
	o, err := parseOptions(args)
	if err != nil {
		return err
	}
	return o.Run(ctx, "diskimage-bench", "rd", func(ctx context.Context, pair *topo.Pair) error {
		img, err := makeImage(o.Work, int64(o.sizeMiB)<<20)
		if err != nil {
			return err
		}
		rep := newReport(o, img)
		runErr := bench(ctx, pair, o, img, rep)
		rep.finish()
		return errors.Join(o.Emit(rep.write), runErr)
	})
}
