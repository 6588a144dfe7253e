package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rackboot/rackboot/bench/internal/httpbench"
	"github.com/rackboot/rackboot/bench/internal/tftpbench"
	"github.com/rackboot/rackboot/testbed/netns"
)

// runLoad is the load generator side: it runs inside the client namespace
// and prints its result as JSON on stdout.
func runLoad(ctx context.Context, which string, args []string) error {
	fs := flag.NewFlagSet(which, flag.ContinueOnError)
	timeout := fs.Duration("timeout", 5*time.Minute, "give up after this long")
	var res any
	switch which {
	case "load-tftp":
		var l tftpbench.Load
		fs.StringVar(&l.Server, "server", "", "host:port")
		fs.StringVar(&l.File, "file", "", "file to fetch")
		fs.Int64Var(&l.Size, "size", 0, "expected size")
		fs.IntVar(&l.Workers, "workers", 50, "concurrent workers")
		fs.IntVar(&l.PerWorker, "per", 10, "fetches per worker")
		fs.IntVar(&l.BlkSize, "blksize", 1468, "TFTP block size")
		fs.IntVar(&l.Window, "window", 0, "TFTP windowsize to ask for (0: lock-step)")
		if err := fs.Parse(args); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(ctx, *timeout)
		defer cancel()
		r, err := l.Run(ctx)
		if err != nil {
			return err
		}
		res = r
	case "load-http":
		var l httpbench.Load
		urls := fs.String("urls", "", "file with one URL per line")
		fs.Int64Var(&l.Size, "size", 0, "expected body size")
		fs.IntVar(&l.Rounds, "rounds", 1, "downloads per URL, in a row")
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
		res = l.Run(ctx)
	default:
		return fmt.Errorf("unknown subcommand %q", which)
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// load re-executes this binary with a load-* subcommand inside ns and
// decodes its JSON result into out.
func load(ctx context.Context, ns *netns.NS, out any, args ...string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := ns.Command(ctx, exe, args...)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("load generator %s: %w", args[0], err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("load generator %s: %w: %q", args[0], err, b)
	}
	return nil
}
