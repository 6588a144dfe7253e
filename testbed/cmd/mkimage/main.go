// Command mkimage builds the testbed boot image (kernel + busybox initrd)
// into a cache directory and prints the paths of the two files:
//
//	go run ./testbed/cmd/mkimage [-cache DIR] [-discovery]
//
// With -discovery it builds the discovery image instead: rackboot-agent and
// Ignition (from this repository) in the initrd, an /init that applies
// /config.ign and runs the agent.
//
// The default cache is $RACKBOOT_CACHE, else <repo>/.cache/testbed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/rackboot/rackboot/testbed/image"
)

func main() {
	cache := flag.String("cache", "", "cache directory (default $RACKBOOT_CACHE or <repo>/.cache/testbed)")
	discovery := flag.Bool("discovery", false, "build the discovery image (rackboot-agent + Ignition)")
	flag.Parse()
	if err := run(*cache, *discovery); err != nil {
		fmt.Fprintln(os.Stderr, "mkimage:", err)
		os.Exit(1)
	}
}

func run(cache string, discovery bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if cache == "" {
		dir, err := image.DefaultCacheDir()
		if err != nil {
			return err
		}
		cache = dir
	}
	build := image.Build
	if discovery {
		build = func(ctx context.Context, cache string) (image.Artifacts, error) {
			root, err := image.RepoRoot()
			if err != nil {
				return image.Artifacts{}, err
			}
			return image.BuildDiscoveryFromSource(ctx, root, cache)
		}
	}
	art, err := build(ctx, cache)
	if err != nil {
		return err
	}
	fmt.Printf("kernel=%s\ninitrd=%s\n", art.Kernel, art.Initrd)
	return nil
}
