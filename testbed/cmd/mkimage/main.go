// Command mkimage builds the testbed boot image (kernel + busybox initrd)
// into a cache directory and prints the paths of the two files:
//
//	go run ./testbed/cmd/mkimage [-cache DIR]
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
	flag.Parse()
	if err := run(*cache); err != nil {
		fmt.Fprintln(os.Stderr, "mkimage:", err)
		os.Exit(1)
	}
}

func run(cache string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if cache == "" {
		dir, err := image.DefaultCacheDir()
		if err != nil {
			return err
		}
		cache = dir
	}
	art, err := image.Build(ctx, cache)
	if err != nil {
		return err
	}
	fmt.Printf("kernel=%s\ninitrd=%s\n", art.Kernel, art.Initrd)
	return nil
}
