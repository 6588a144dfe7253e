package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rackboot/rackboot/bench/internal/proc"
	"github.com/rackboot/rackboot/bench/internal/report"
	"github.com/rackboot/rackboot/bench/internal/topo"
	"github.com/rackboot/rackboot/testbed/netns"
)

// options are the command-line settings of a full run.
type options struct {
	rackbootd string
	out       string
	only      map[string]bool
	quick     bool
	workDir   string
	keep      bool
	command   string
	quietWait time.Duration
	busyRuns  *int // runs that started while the machine was busy
}

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "load-") {
		err = runLoad(ctx, os.Args[1], os.Args[2:])
	} else {
		err = runAll(ctx, os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rackbench:", err)
		stop()
		os.Exit(1)
	}
}

func parseOptions(args []string) (options, error) {
	fs := flag.NewFlagSet("rackbench", flag.ContinueOnError)
	var o options
	var only string
	fs.StringVar(&o.rackbootd, "rackbootd", "bin/rackbootd", "rackbootd binary to measure")
	fs.StringVar(&o.out, "out", "", "write the Markdown report here (e.g. docs/benchmarks.md)")
	fs.StringVar(&only, "only", "dhcp,tftp,http", "comma-separated benchmarks to run")
	fs.BoolVar(&o.quick, "quick", false, "shorter runs, for trying the harness")
	fs.StringVar(&o.workDir, "work", "", "directory for configs, logs and lease files (default: a temporary one)")
	fs.BoolVar(&o.keep, "keep", false, "keep the work directory")
	fs.StringVar(&o.command, "command", "", "command line to print in the report (default: this one)")
	fs.DurationVar(&o.quietWait, "quiet-wait", 20*time.Second, "before each run, wait up to this long for other work on the machine to calm down")
	o.busyRuns = new(int)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.only = map[string]bool{}
	for _, s := range strings.Split(only, ",") {
		o.only[strings.TrimSpace(s)] = true
	}
	if o.command == "" {
		o.command = strings.Join(append([]string{"rackbench"}, args...), " ")
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
		if o.workDir, err = os.MkdirTemp("", "rackbench-"); err != nil {
			return err
		}
		if !o.keep {
			defer os.RemoveAll(o.workDir)
		}
	}
	if err := os.MkdirAll(o.workDir, 0o755); err != nil {
		return err
	}
	slog.Info("work directory", "dir", o.workDir)
	pair, err := topo.New(ctx, "rb")
	if err != nil {
		return err
	}
	defer pair.Close()
	rep := report.Report{Machine: machine(ctx, o.command, o.workDir)}
	rb := rackbootdBinary(o.rackbootd, o.workDir)
	if rb.missing != "" {
		rep.Notes = append(rep.Notes, "rackbootd was not measured: "+rb.missing)
	}
	a, err := makeAssets(filepath.Join(o.workDir, "assets"), 48)
	if err != nil {
		return err
	}
	var errs []error
	if o.only["dhcp"] {
		errs = append(errs, benchDHCP(ctx, pair, o, rb, a, &rep))
	}
	if o.only["tftp"] {
		errs = append(errs, benchTFTP(ctx, pair, o, rb, a, &rep))
	}
	if o.only["http"] {
		errs = append(errs, benchHTTP(ctx, pair, o, rb, a, &rep))
	}
	rep.Machine.LoadAvg[1] = loadAvg()
	if *o.busyRuns > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d runs started while other processes kept the CPUs more than "+
			"30%% busy (after waiting up to %s for them to calm down).", *o.busyRuns, o.quietWait))
	}
	if busy(rep.Machine.LoadAvg[0]) || busy(rep.Machine.LoadAvg[1]) {
		rep.Notes = append(rep.Notes, fmt.Sprintf("The machine was busy with other work during this run "+
			"(load average %s at the start, %s at the end, on %d CPUs): wall-clock rates and "+
			"latencies are noisy, the CPU-time columns much less so. Rerun `make bench` on a quiet machine.",
			rep.Machine.LoadAvg[0], rep.Machine.LoadAvg[1], rep.Machine.CPUs))
	}
	if err := report.Write(os.Stdout, rep); err != nil {
		return err
	}
	if o.out != "" {
		if err := writeFile(o.out, rep); err != nil {
			return err
		}
	}
	return errors.Join(errs...)
}

func writeFile(path string, rep report.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := report.Write(f, rep); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// rackbootd is the binary under test, or why it cannot be measured.
type rackbootd struct {
	path    string
	missing string
}

// rackbootdBinary copies the binary into the work directory, so that a
// rebuild during the run does not change what is measured.
func rackbootdBinary(path, workDir string) rackbootd {
	st, err := os.Stat(path)
	if err != nil || st.Mode()&0o111 == 0 {
		return rackbootd{missing: fmt.Sprintf("%s is not an executable (run `make build`)", path)}
	}
	dst := filepath.Join(workDir, "rackbootd")
	if _, err := copyFile(path, dst); err != nil {
		return rackbootd{missing: err.Error()}
	}
	if err := os.Chmod(dst, 0o755); err != nil {
		return rackbootd{missing: err.Error()}
	}
	return rackbootd{path: dst}
}

// workSubdir makes a fresh directory for one server run.
func workSubdir(o options, name string) (string, error) {
	return os.MkdirTemp(o.workDir, name+"-")
}

// durations of the runs, shorter with -quick.
func (o options) period(normal, quick time.Duration) time.Duration {
	if o.quick {
		return quick
	}
	return normal
}

// rounds is how many times each TFTP and HTTP server is measured; servers
// take turns and the report keeps each one's best run.
func (o options) rounds() int {
	if o.quick {
		return 1
	}
	return 3
}

// gate waits for the machine to be quiet before a run and counts the runs
// that had to start anyway.
func (o options) gate(ctx context.Context) bool {
	busy, ok := proc.WaitQuiet(ctx, 0.3, o.quietWait)
	if !ok {
		*o.busyRuns++
		slog.Warn("machine busy with other work", "cpu_busy", fmt.Sprintf("%.0f%%", busy*100))
	}
	return ok
}
