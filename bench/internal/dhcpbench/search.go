package dhcpbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rackboot/rackboot/bench/internal/proc"
	"github.com/rackboot/rackboot/bench/internal/topo"
	"github.com/rackboot/rackboot/testbed/netns"
)

// MaxDropPct is the drop ratio below which a rate counts as sustained.
const MaxDropPct = 1.0

// ErrRun is returned when perfdhcp cannot be run at all.
var ErrRun = errors.New("dhcpbench: perfdhcp run failed")

// Target is a DHCP server under test. Start launches a fresh instance whose
// state (leases) lives in dir.
type Target struct {
	Name  string
	Start func(ctx context.Context, dir string) (*proc.Proc, error)
}

// Options bound the search.
type Options struct {
	Period    time.Duration // length of each perfdhcp run
	Clients   int           // perfdhcp -R: distinct simulated clients
	StartRate int           // first rate tried, doubled until drops reach 1%
	MaxRate   int           // never ask for more than this
	Refine    int           // bisection steps after the first failing rate
	WorkDir   string        // per-step state directories are made here
	// Retry reruns a failed step once: background load on a shared machine
	// only ever makes a server look slower, so the better of two runs is
	// the closer estimate.
	Retry bool
	// Gate, if set, is called before each step; it may wait for the machine
	// to be quiet and reports whether it was.
	Gate func(context.Context) bool
}

// Step is one perfdhcp run at one requested rate against a fresh server.
type Step struct {
	Rate      int     // requested DORA/s (perfdhcp -r)
	Exchanges float64 // completed DORA exchanges per second of the run
	DropPct   float64 // DISCOVERs that never got their ACK, in percent
	DO, RA    Percentiles
	OK        bool          // DropPct < MaxDropPct and at least 90% of the requested rate completed
	ServerCPU time.Duration // CPU time the server used during the run
	Acked     int           // DORA exchanges completed
	Busy      bool          // the machine was busy with other work when the step started
}

// CPUPerExchange is the server's CPU time per completed DORA exchange.
func (s Step) CPUPerExchange() time.Duration {
	if s.Acked == 0 {
		return 0
	}
	return s.ServerCPU / time.Duration(s.Acked)
}

// Result is the search outcome for one server.
type Result struct {
	Name  string
	Steps []Step
	Best  Step // the fastest OK step; zero if none
}

// SearchAll finds the highest rate each target sustains. For each target
// the rate doubles from StartRate until a step fails, then bisects between
// the last good and the first failing rate. The targets take turns, one step
// each, so that a change in the machine's background load during the run
// does not land on one server only. Every step starts the server afresh.
func SearchAll(ctx context.Context, p *topo.Pair, targets []Target, o Options) ([]Result, []error) {
	ss := make([]*search, len(targets))
	for i, t := range targets {
		ss[i] = &search{res: Result{Name: t.Name}}
	}
	errs := make([]error, len(targets))
	for more := true; more && ctx.Err() == nil; {
		more = false
		for i, s := range ss {
			rate := s.next(o)
			if rate == 0 || errs[i] != nil {
				continue
			}
			more = true
			tries := 1
			if o.Retry {
				tries = 2
			}
			for try := 0; try < tries; try++ {
				st, err := gatedStep(ctx, p, targets[i], o, rate)
				if err != nil {
					errs[i] = err
					break
				}
				slog.Info("dhcp step", "server", targets[i].Name, "rate", rate, "exchanges_per_s", int(st.Exchanges),
					"drop_pct", fmt.Sprintf("%.3f", st.DropPct), "ok", st.OK, "busy", st.Busy)
				s.res.Steps = append(s.res.Steps, st)
				if st.OK || try == tries-1 {
					s.record(st)
					break
				}
			}
		}
	}
	res := make([]Result, len(ss))
	for i, s := range ss {
		res[i] = s.res
	}
	if err := ctx.Err(); err != nil {
		errs = append(errs, err)
	}
	return res, errs
}

// search is the state of one target's rate search.
type search struct {
	res       Result
	good, bad int // highest sustained and lowest failed rate so far (0: none)
	refined   int // bisection steps done
}

// next returns the next rate to try, or 0 when the search is over.
func (s *search) next(o Options) int {
	switch {
	case len(s.res.Steps) == 0:
		return o.StartRate
	case s.bad == 0 && s.good*2 <= o.MaxRate:
		return s.good * 2
	case s.bad == 0 || s.refined >= o.Refine || s.bad-s.good <= o.StartRate/4:
		return 0
	}
	return (s.good + s.bad) / 2 / 100 * 100
}

func (s *search) record(st Step) {
	if s.bad > 0 {
		s.refined++
	}
	if st.OK {
		s.good = st.Rate
		if st.Exchanges > s.res.Best.Exchanges {
			s.res.Best = st
		}
		return
	}
	s.bad = st.Rate
}

func gatedStep(ctx context.Context, p *topo.Pair, t Target, o Options, rate int) (Step, error) {
	busy := false
	if o.Gate != nil {
		busy = !o.Gate(ctx)
	}
	st, err := runStep(ctx, p, t, o, rate)
	st.Busy = busy
	return st, err
}

func runStep(ctx context.Context, p *topo.Pair, t Target, o Options, rate int) (Step, error) {
	dir, err := os.MkdirTemp(o.WorkDir, fmt.Sprintf("%s-%d-", t.Name, rate))
	if err != nil {
		return Step{}, fmt.Errorf("%w: %w", ErrRun, err)
	}
	srv, err := t.Start(ctx, dir)
	if err != nil {
		return Step{}, err
	}
	defer srv.Stop()
	if err := srv.WaitReady(ctx, 20*time.Second, func(ctx context.Context) error {
		return Probe(ctx, p.Client)
	}); err != nil {
		return Step{}, err
	}
	cpu0 := srv.CPU()
	out, err := perfdhcp(ctx, p.Client, o, rate)
	if err != nil {
		return Step{}, err
	}
	cpu := srv.CPU() - cpu0
	if err := os.WriteFile(filepath.Join(dir, "perfdhcp.out"), out, 0o644); err != nil {
		return Step{}, fmt.Errorf("%w: %w", ErrRun, err)
	}
	rep, err := Parse(bytes.NewReader(out))
	if err != nil {
		return Step{}, err
	}
	st := stepOf(rate, o.Period, rep)
	st.ServerCPU = cpu
	return st, nil
}

func stepOf(rate int, period time.Duration, rep Report) Step {
	st := Step{Rate: rate, DO: Summarize(rep.DO.Delays), RA: Summarize(rep.RA.Delays)}
	st.Acked = rep.RA.Received
	st.Exchanges = float64(rep.RA.Received) / period.Seconds()
	if rep.DO.Sent > 0 {
		st.DropPct = 100 * float64(rep.DO.Sent-rep.RA.Received) / float64(rep.DO.Sent)
	}
	st.OK = st.DropPct < MaxDropPct && st.Exchanges >= 0.9*float64(rate)
	return st
}

// Probe sends one DISCOVER (and the REQUEST after it); it succeeds once the
// server has answered the DISCOVER.
func Probe(ctx context.Context, client *netns.NS) error {
	// Without -r perfdhcp can wait forever; -n 1 -r 1 ends after one
	// exchange. Whether perfdhcp waits for the ACK depends on its timing, so
	// only the OFFER counts.
	cmd := client.Command(ctx, "perfdhcp", "-4", "-l", topo.ClientIf, "-n", "1", "-r", "1", "-W", "500000")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 3) {
		return fmt.Errorf("%w: probe: %w", ErrRun, err)
	}
	rep, err := Parse(bytes.NewReader(out))
	if err != nil {
		return err
	}
	if rep.DO.Received == 0 {
		return fmt.Errorf("%w: probe: no OFFER", ErrRun)
	}
	return nil
}

// perfdhcp runs the rate test; exit status 3 (some exchanges lost) is a
// result, not an error. -W lets answers to the last requests arrive, so only
// real losses count as drops.
func perfdhcp(ctx context.Context, client *netns.NS, o Options, rate int) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, o.Period+30*time.Second)
	defer cancel()
	cmd := client.Command(ctx, "perfdhcp", "-4", "-l", topo.ClientIf,
		"-r", strconv.Itoa(rate), "-R", strconv.Itoa(o.Clients),
		"-p", strconv.FormatFloat(o.Period.Seconds(), 'f', -1, 64),
		"-W", "500000", "-s", "42", "-x", "t")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 3) {
		return out, fmt.Errorf("%w: rate %d: %w: %.300s", ErrRun, rate, err, stderr.String())
	}
	return out, nil
}
