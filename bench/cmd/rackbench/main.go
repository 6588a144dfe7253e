package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rackboot/rackboot/bench/internal/harness"
	"github.com/rackboot/rackboot/bench/internal/httpbench"
	"github.com/rackboot/rackboot/bench/internal/proc"
	"github.com/rackboot/rackboot/bench/internal/report"
	"github.com/rackboot/rackboot/bench/internal/topo"
)

// options are the command-line settings of a full run.
type options struct {
	harness.Common
	only     map[string]bool
	quick    bool
	busyRuns *int // runs that started while the machine was busy
}

func main() {
	loaders := map[string]harness.Loader{
		"load-tftp": loadTFTP,
		httpbench.Subcommand: func(ctx context.Context, args []string) (any, error) {
			return httpbench.RunArgs(ctx, args)
		},
	}
	os.Exit(harness.Main("rackbench", os.Args[1:], loaders, runAll))
}

func parseOptions(args []string) (options, error) {
	fs := flag.NewFlagSet("rackbench", flag.ContinueOnError)
	var o options
	var only string
	o.Register(fs)
	fs.StringVar(&only, "only", "dhcp,tftp,http", "comma-separated benchmarks to run")
	fs.BoolVar(&o.quick, "quick", false, "shorter runs, for trying the harness")
	o.busyRuns = new(int)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.only = map[string]bool{}
	for _, s := range strings.Split(only, ",") {
		o.only[strings.TrimSpace(s)] = true
	}
	o.DefaultCommand("rackbench", args)
	return o, nil
}

func runAll(ctx context.Context, args []string) error {
	o, err := parseOptions(args)
	if err != nil {
		return err
	}
	return o.Run(ctx, "rackbench", "rb", func(ctx context.Context, pair *topo.Pair) error {
		rep := report.Report{Machine: machine(ctx, o.Command, o.Work)}
		runErr := benchAll(ctx, pair, o, &rep)
		rep.Machine.LoadAvg[1] = harness.LoadAvg()
		rep.Notes = append(rep.Notes, busyNotes(o, rep.Machine)...)
		return errors.Join(o.Emit(func(w io.Writer) error { return report.Write(w, rep) }), runErr)
	})
}

// benchAll runs the benchmarks -only names.
func benchAll(ctx context.Context, pair *topo.Pair, o options, rep *report.Report) error {
	rb := rackbootdBinary(o.Rackbootd, o.Work)
	if rb.missing != "" {
		rep.Notes = append(rep.Notes, "rackbootd was not measured: "+rb.missing)
	}
	a, err := makeAssets(filepath.Join(o.Work, "assets"), 48)
	if err != nil {
		return err
	}
	var errs []error
	if o.only["dhcp"] {
		errs = append(errs, benchDHCP(ctx, pair, o, rb, a, rep))
	}
	if o.only["tftp"] {
		errs = append(errs, benchTFTP(ctx, pair, o, rb, a, rep))
	}
	if o.only["http"] {
		errs = append(errs, benchHTTP(ctx, pair, o, rb, a, rep))
	}
	return errors.Join(errs...)
}

// busyNotes say when other work on the machine made the numbers noisy.
func busyNotes(o options, m report.Machine) []string {
	var notes []string
	if *o.busyRuns > 0 {
		notes = append(notes, fmt.Sprintf("%d runs started while other processes kept the CPUs more than "+
			"30%% busy (after waiting up to %s for them to calm down).", *o.busyRuns, o.QuietWait))
	}
	if busy(m.LoadAvg[0]) || busy(m.LoadAvg[1]) {
		notes = append(notes, fmt.Sprintf("The machine was busy with other work during this run "+
			"(load average %s at the start, %s at the end, on %d CPUs): wall-clock rates and "+
			"latencies are noisy, the CPU-time columns much less so. Rerun `make bench` on a quiet machine.",
			m.LoadAvg[0], m.LoadAvg[1], m.CPUs))
	}
	return notes
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
	busy, ok := proc.WaitQuiet(ctx, 0.3, o.QuietWait)
	if !ok {
		*o.busyRuns++
		slog.Warn("machine busy with other work", "cpu_busy", fmt.Sprintf("%.0f%%", busy*100))
	}
	return ok
}
