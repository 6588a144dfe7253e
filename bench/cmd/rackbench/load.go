package main

import (
	"context"
	"flag"
	"time"

	"github.com/rackboot/rackboot/bench/internal/tftpbench"
)

// loadTFTP is the TFTP load generator (subcommand load-tftp): it runs
// inside the client namespace; tftpArgs writes its command line.
func loadTFTP(ctx context.Context, args []string) (any, error) {
	fs := flag.NewFlagSet("load-tftp", flag.ContinueOnError)
	timeout := fs.Duration("timeout", 5*time.Minute, "give up after this long")
	var l tftpbench.Load
	fs.StringVar(&l.Server, "server", "", "host:port")
	fs.StringVar(&l.File, "file", "", "file to fetch")
	fs.Int64Var(&l.Size, "size", 0, "expected size")
	fs.IntVar(&l.Workers, "workers", 50, "concurrent workers")
	fs.IntVar(&l.PerWorker, "per", 10, "fetches per worker")
	fs.IntVar(&l.BlkSize, "blksize", 1468, "TFTP block size")
	fs.IntVar(&l.Window, "window", 0, "TFTP windowsize to ask for (0: lock-step)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	return l.Run(ctx)
}
