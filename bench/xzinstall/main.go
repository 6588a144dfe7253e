package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

type options struct {
	sizeMiB, rounds int
	work, out, cmd  string
	file, keep      bool
}

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "xzinstall:", err)
		os.Exit(1)
	}
}

func parse(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("xzinstall", flag.ContinueOnError)
	fs.IntVar(&o.sizeMiB, "size", 1024, "raw metal image size in MiB (at least 512)")
	fs.IntVar(&o.rounds, "rounds", 3, "installs per contender, alternating; the best is reported")
	fs.StringVar(&o.work, "work", "/var/tmp/rackboot-xzinstall", "work directory (the image is kept there and reused)")
	fs.StringVar(&o.out, "out", "bench/xzinstall/last.md", "file the markdown section is written to")
	fs.StringVar(&o.cmd, "command", "", "the command line the report shows (default: this one)")
	fs.BoolVar(&o.file, "file", false, "install onto a regular file instead of a loop device over it")
	fs.BoolVar(&o.keep, "keep", true, "keep the work directory (the image is reused by the next run)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.sizeMiB < 512 || o.rounds < 1 {
		return o, errors.New("-size must be ≥ 512 and -rounds ≥ 1")
	}
	if o.cmd == "" {
		o.cmd = "go run ./bench/xzinstall " + strings.Join(args, " ")
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.work, 0o755); err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(o.work)
	}
	slog.Info("building the metal image (reused when -work has one of this size)", "dir", o.work, "MiB", o.sizeMiB)
	m, err := makeMetal(o.work, o.sizeMiB)
	if err != nil {
		return err
	}
	url, stopHTTP, err := serve(m)
	if err != nil {
		return err
	}
	defer stopHTTP()
	backing := filepath.Join(o.work, "target.img")
	if err := os.WriteFile(backing, nil, 0o644); err != nil {
		return err
	}
	if err := os.Truncate(backing, m.rawSize+64<<20); err != nil {
		return err
	}
	target := backing
	if !o.file {
		dev, detach, err := loopDevice(ctx, backing)
		if err != nil {
			return err
		}
		defer detach()
		target = dev
	}
	rep := &report{o: o, m: m, target: target, date: time.Now().UTC(), load: [2]string{loadAvg()}}
	ins := installers(m, url)
	rep.rows = make([]row, len(ins))
	var errs []error
	for round := 0; round < o.rounds; round++ {
		for i, in := range ins {
			rep.rows[i].name = in.name
			d, err := once(ctx, in, m, backing, target)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", in.name, err))
				rep.rows[i].note = err.Error()
				continue
			}
			rep.rows[i].runs = append(rep.rows[i].runs, d)
			slog.Info("install", "contender", in.name, "round", round+1, "s", d.Seconds(), "MB/s", float64(m.rawSize)/1e6/d.Seconds())
		}
	}
	rep.load[1] = loadAvg()
	md := rep.markdown()
	fmt.Fprint(stdout, md)
	if o.out != "" {
		errs = append(errs, os.WriteFile(o.out, []byte(md), 0o644))
	}
	return errors.Join(errs...)
}

// once zeroes the target (a hole punched in the backing file, the loop
// device's cache flushed), installs and checks.
func once(ctx context.Context, in installer, m metal, backing, target string) (time.Duration, error) {
	if err := zero(backing, target); err != nil {
		return 0, err
	}
	start := time.Now()
	if err := in.run(ctx, target); err != nil {
		return 0, err
	}
	d := time.Since(start)
	return d, check(m, target)
}

func zero(backing, target string) error {
	f, err := os.OpenFile(backing, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, 0, fi.Size()); err != nil {
		return fmt.Errorf("xzinstall: punching the target: %w", err)
	}
	if target != backing {
		if out, err := exec.Command("blockdev", "--flushbufs", target).CombinedOutput(); err != nil {
			return fmt.Errorf("xzinstall: blockdev --flushbufs: %w: %s", err, out)
		}
	}
	return nil
}

// row is one contender's runs.
type row struct {
	name string
	runs []time.Duration
	note string
}

func (r row) best() time.Duration {
	if len(r.runs) == 0 {
		return 0
	}
	return slices.Min(r.runs)
}

type report struct {
	o      options
	m      metal
	target string
	date   time.Time
	load   [2]string
	rows   []row
}

func (r *report) rate(d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(r.m.rawSize) / 1e6 / d.Seconds()
}

func (r *report) markdown() string {
	var b strings.Builder
	w := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	w("## Installing a .raw.xz metal image: rackboot-agent against `xz -dc | dd`\n\n")
	w("`%s` (%s UTC; %d CPUs, load average %s at the start, %s at the end: other sessions' builds and tests share the CPUs; %s).\n\n",
		r.o.cmd, r.date.Format("2006-01-02 15:04"), runtime.NumCPU(), r.load[0], r.load[1], runtime.Version())
	xzv, _ := exec.Command("xz", "--version").Output()
	w("A CoreOS-shaped metal image of %d MiB (GPT: BIOS-BOOT, EFI-SYSTEM, an ext4 `boot` with a BLS entry and `ignition.firstboot`, "+
		"`root` 70%% filled with a tar of this machine's /usr), compressed with `xz -1` (to save time on this busy machine) to %.0f MiB, installed onto the same target, %s, "+
		"zeroed before each install (a hole punched in its backing file). rackboot-agent: the install step "+
		"(`cmd/rackboot-agent/steps`) run through `steps.Runner` as the agent runs it: the .raw.xz streamed over HTTP from "+
		"loopback (Go's file server) with its sha256 checked, decompressed on the fly, written in 1 MiB blocks and synced, then the "+
		"Ignition written to the boot file system (mounted through a loop device). The peer reads the local file: "+
		"`xz -dc metal.raw.xz | dd of=TARGET bs=1M conv=fsync`; the curl row fetches it from the same URL as the agent. "+
		"%d alternating rounds; best run reported; each run checked (the target holds the raw image outside `boot`). xz: %s.\n\n",
		r.o.sizeMiB, float64(r.m.xzSize)/(1<<20), r.targetDesc(), r.o.rounds, strings.TrimSpace(strings.SplitN(string(xzv), "\n", 2)[0]))
	w("| Installer | MB/s (raw) | Seconds | All runs (s) |\n|---|---:|---:|---|\n")
	for _, x := range r.rows {
		var all []string
		for _, d := range x.runs {
			all = append(all, fmt.Sprintf("%.2f", d.Seconds()))
		}
		if x.note != "" {
			all = append(all, "failed: "+x.note)
		}
		w("| %s | %.0f | %.2f | %s |\n", strings.ReplaceAll(x.name, "|", "\\|"), r.rate(x.best()), x.best().Seconds(), strings.Join(all, ", "))
	}
	if a, p := r.rate(r.rows[0].best()), r.rate(r.rows[1].best()); a > 0 && p > 0 {
		verdict := "met"
		if a/p < 0.9 {
			verdict = "NOT met"
		}
		w("\nrackboot-agent ÷ `xz -dc | dd`: **%.2f×** (target ≥ 0.9×: %s).", a/p, verdict)
		if g := r.rate(r.rows[3].best()); g > 0 {
			w(" The pure-Go decoder (github.com/ulikunitz/xz, used only where the live system has no `xz`): %.2f×.", g/p)
		}
		w("\n")
	}
	return b.String()
}

func (r *report) targetDesc() string {
	if r.o.file {
		return "a regular file"
	}
	return "a loop device (" + r.target + ") over a file on this machine's disk"
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
