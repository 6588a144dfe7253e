// Command mkimage builds the testbed boot image (kernel + busybox initrd)
// into a cache directory and prints the paths of the two files:
//
//	go run ./testbed/cmd/mkimage [-cache DIR] [-os | -coreos]
//
// With -os it builds the installable OS disk image (testbed/osimage) and
// prints its path, sha256 and size instead:
//
//	disk=/.../disk.img
//	sha256=...
//	size=...
//
// With -coreos it publishes the CoreOS-shaped mirror (testbed/coreosimage:
// live ISO, PXE kernel, initramfs and rootfs, the OS image as raw.xz) and
// prints the paths an [[image_set]] takes (coreos_stream = the stream):
//
//	stream=/.../stream.json
//	iso=/.../rackboot-testbed-live.x86_64.iso
//	kernel=...  initramfs=...  rootfs=...  metal=...  (one per line)
//
// The default cache is $RACKBOOT_CACHE, else <repo>/.cache/testbed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/rackboot/rackboot/testbed/coreosimage"
	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/osimage"
)

func main() {
	cache := flag.String("cache", "", "cache directory (default $RACKBOOT_CACHE or <repo>/.cache/testbed)")
	osImage := flag.Bool("os", false, "build the installable OS disk image (testbed/osimage)")
	coreOS := flag.Bool("coreos", false, "publish the CoreOS-shaped live image set and metal image with a stream.json (testbed/coreosimage)")
	flag.Parse()
	var err error
	switch {
	case *coreOS:
		err = runCoreOS(*cache)
	case *osImage:
		err = runOS(*cache)
	default:
		err = run(*cache)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkimage:", err)
		os.Exit(1)
	}
}

func cacheDir(cache string) (string, error) {
	if cache != "" {
		return cache, nil
	}
	return image.DefaultCacheDir()
}

// runOS builds the OS disk image from this repository's Ignition.
func runOS(cache string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cache, err := cacheDir(cache)
	if err != nil {
		return err
	}
	root, err := image.RepoRoot()
	if err != nil {
		return err
	}
	img, err := osimage.BuildFromSource(ctx, root, cache)
	if err != nil {
		return err
	}
	fmt.Printf("disk=%s\nsha256=%s\nsize=%d\n", img.Path, img.SHA256, img.Size)
	return nil
}

// runCoreOS publishes the CoreOS-shaped mirror from this repository.
func runCoreOS(cache string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cache, err := cacheDir(cache)
	if err != nil {
		return err
	}
	root, err := image.RepoRoot()
	if err != nil {
		return err
	}
	m, err := coreosimage.BuildFromSource(ctx, root, cache)
	if err != nil {
		return err
	}
	fmt.Printf("stream=%s\niso=%s\nkernel=%s\ninitramfs=%s\nrootfs=%s\nmetal=%s\n",
		m.Stream, m.ISO.Path, m.Kernel.Path, m.Initrd.Path, m.Rootfs.Path, m.Metal.Path)
	return nil
}

func run(cache string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cache, err := cacheDir(cache)
	if err != nil {
		return err
	}
	art, err := image.Build(ctx, cache)
	if err != nil {
		return err
	}
	fmt.Printf("kernel=%s\ninitrd=%s\n", art.Kernel, art.Initrd)
	return nil
}
