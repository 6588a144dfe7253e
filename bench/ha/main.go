package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rackboot/rackboot/testbed/image"
)

type options struct {
	out      string
	bin      string
	work     string
	only     string
	writeFor time.Duration
	clients  int
	kills    int
	period   time.Duration
	command  string
}

func main() {
	var o options
	flag.StringVar(&o.out, "out", "bench/ha/last.md", "Markdown report `file`")
	flag.StringVar(&o.bin, "rackbootd", "", "rackbootd `binary` (default bin/rackbootd; rackbootctl next to it)")
	flag.StringVar(&o.work, "work", "", "work `directory` (default a temporary one, removed)")
	flag.StringVar(&o.only, "only", "", "run only `names` (comma-separated: writes,dhcp,failover)")
	flag.DurationVar(&o.writeFor, "write-for", 10*time.Second, "length of each write run")
	flag.IntVar(&o.clients, "clients", 32, "concurrent API clients of the write runs")
	flag.IntVar(&o.kills, "kills", 20, "leader kills of the failover run")
	flag.DurationVar(&o.period, "period", 5*time.Second, "length of each perfdhcp run")
	flag.StringVar(&o.command, "command", "make bench-ha", "command named in the report")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(o, log); err != nil {
		log.Error("bench/ha failed", "err", err)
		os.Exit(1)
	}
}

func run(o options, log *slog.Logger) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("bench/ha builds network namespaces: run it as root")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.bin == "" {
		root, err := image.RepoRoot()
		if err != nil {
			return err
		}
		o.bin = filepath.Join(root, "bin", "rackbootd")
	}
	if o.work == "" {
		dir, err := os.MkdirTemp("", "bench-ha-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o.work = dir
	}
	rep := &report{started: time.Now(), opts: o}
	want := func(name string) bool { return o.only == "" || strings.Contains(","+o.only+",", ","+name+",") }
	b := &bench{o: o, log: log}
	if want("writes") {
		rows, err := b.writes(ctx)
		if err != nil {
			return fmt.Errorf("writes: %w", err)
		}
		rep.writes = rows
	}
	if want("dhcp") {
		rows, err := b.dhcp(ctx)
		if err != nil {
			return fmt.Errorf("dhcp: %w", err)
		}
		rep.dhcp = rows
	}
	if want("failover") {
		f, err := b.failover(ctx)
		if err != nil {
			return fmt.Errorf("failover: %w", err)
		}
		rep.failover = f
	}
	text := rep.markdown()
	fmt.Print(text)
	return os.WriteFile(o.out, []byte(text), 0o644)
}

// bench holds what every benchmark needs.
type bench struct {
	o   options
	log *slog.Logger
	seq int // racks made so far, for their directories
}
