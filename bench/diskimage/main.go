package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rackboot/rackboot/bench/internal/topo"
	"github.com/rackboot/rackboot/testbed/netns"
)

type options struct {
	rackbootd string
	out       string
	workDir   string
	keep      bool
	command   string
	sizeMiB   int
	clients   int
	rounds    int
	hash      bool
	route     string
	quietWait time.Duration
}

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if len(os.Args) > 1 && os.Args[1] == "load" {
		err = runLoad(ctx, os.Args[2:])
	} else {
		err = runAll(ctx, os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "diskimage:", err)
		stop()
		os.Exit(1)
	}
}

func parseOptions(args []string) (options, error) {
	fs := flag.NewFlagSet("diskimage", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.rackbootd, "rackbootd", "bin/rackbootd", "rackbootd binary to measure")
	fs.StringVar(&o.out, "out", "", "write the Markdown section here (e.g. bench/diskimage/last.md)")
	fs.StringVar(&o.workDir, "work", "", "directory for the image, configs and logs (default: a temporary one)")
	fs.BoolVar(&o.keep, "keep", false, "keep the work directory")
	fs.StringVar(&o.command, "command", "", "command line to print in the report (default: this one)")
	fs.IntVar(&o.sizeMiB, "size", 256, "disk image size in MiB")
	fs.IntVar(&o.clients, "clients", 50, "simulated installing hosts downloading at once")
	fs.IntVar(&o.rounds, "rounds", 3, "runs per server, alternating; the best is reported")
	fs.BoolVar(&o.hash, "hash", true, "clients sha256 every body, as the install step does")
	fs.StringVar(&o.route, "route", routeImage, "how rackbootd sends the image: kernel (a boot profile's kernel) or image (/images/{set}/disk.img of an [[image_set]])")
	fs.DurationVar(&o.quietWait, "quiet-wait", 20*time.Second, "before each run, wait up to this long for other work on the machine to calm down")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.sizeMiB <= 0 || o.clients <= 0 || o.rounds <= 0 {
		return o, errors.New("-size, -clients and -rounds must be positive")
	}
	if o.route != routeKernel && o.route != routeImage {
		return o, fmt.Errorf("-route %q: want %s or %s", o.route, routeKernel, routeImage)
	}
	if o.command == "" {
		o.command = strings.Join(append([]string{"diskimage"}, args...), " ")
	}
	return o, nil
}

func runAll(ctx context.Context, args []string) error {
	o, err := parseOptions(args)
	if err != nil {
		return err
	}
	if err := netns.Available(); err != nil {
		return err
	}
	if o.workDir == "" {
		if o.workDir, err = os.MkdirTemp("", "diskimage-bench-"); err != nil {
			return err
		}
		if !o.keep {
			defer os.RemoveAll(o.workDir)
		}
	}
	slog.Info("work directory", "dir", o.workDir)
	img, err := makeImage(o.workDir, int64(o.sizeMiB)<<20)
	if err != nil {
		return err
	}
	pair, err := topo.New(ctx, "rd")
	if err != nil {
		return err
	}
	defer pair.Close()
	rep := newReport(o, img)
	runErr := bench(ctx, pair, o, img, rep)
	rep.finish()
	if err := rep.write(os.Stdout); err != nil {
		return err
	}
	if o.out != "" {
		f, err := os.Create(o.out)
		if err != nil {
			return err
		}
		if err := rep.write(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return runErr
}

// runLoad is the load generator side, inside the client namespace: it
// prints its Result as JSON on stdout.
func runLoad(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	var l Load
	urls := fs.String("urls", "", "file with one URL per line")
	fs.Int64Var(&l.Size, "size", 0, "expected body length")
	fs.StringVar(&l.SHA256, "sha256", "", "expected body sha256 (empty: no hashing)")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	b, err := os.ReadFile(*urls)
	if err != nil {
		return err
	}
	l.URLs = strings.Fields(string(b))
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	return json.NewEncoder(os.Stdout).Encode(l.Run(ctx))
}
