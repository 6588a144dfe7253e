package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrUsage: bad flags.
var ErrUsage = errors.New("agents: usage")

// options are the command's flags.
type options struct {
	hosts, concurrency int
	interval, pollFor  time.Duration
	server, bin, work  string
	out, pprofDir      string
	keep               bool
	nice               int
	rack, rounds       int
	applianceCPU       float64
	// -kube mode (kubereport.go)
	kube, kubePoll                bool
	kubectl                       string
	watchers, writes, kubectlRuns int
	writeGap, watchLimit          time.Duration
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(args) >= 2 && args[0] == "-serve-data-dir" { // the in-process server
		if err := serveInProcess(ctx, args[1], slices.Contains(args[2:], "contention")); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	o, err := parseFlags(args, stderr)
	if err != nil {
		return 2
	}
	if err := bench(ctx, o, stdout); err != nil {
		fmt.Fprintln(stderr, "agents:", err)
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("agents", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.hosts, "hosts", 10000, "simulated hosts")
	fs.IntVar(&o.concurrency, "concurrency", 200, "registrations in flight (and the client's connection limit)")
	fs.DurationVar(&o.interval, "interval", 60*time.Second, "steady polling interval per host (upstream: 60 s)")
	fs.DurationVar(&o.pollFor, "poll", 3*time.Minute, "length of the steady polling phase (0: skip it)")
	fs.StringVar(&o.server, "server", kindAuto, "server: binary (bin/rackbootd), inprocess (engine/api + cluster.Store in a child process), auto (binary if it serves the API)")
	fs.StringVar(&o.bin, "bin", "bin/rackbootd", "rackbootd binary for -server binary/auto")
	fs.StringVar(&o.work, "work", "", "work directory (default: a temporary one, removed unless -keep)")
	fs.BoolVar(&o.keep, "keep", false, "keep the work directory (data_dir, logs)")
	fs.StringVar(&o.out, "out", "bench/agents/last.md", "file the markdown section is written to")
	fs.IntVar(&o.nice, "nice", -10, "scheduling priority of this program and the server (as bench/run.sh runs the other benchmarks); 0 leaves it")
	fs.IntVar(&o.rack, "rack", 0, "instead of the two phases: the registration storm on a rack of this many appliances against a rack of one (testbed/ha namespaces, root; 0: off)")
	fs.IntVar(&o.rounds, "rounds", 2, "with -rack: storms per rack size, alternating")
	fs.Float64Var(&o.applianceCPU, "appliance-cpu", 0.5, "with -rack: first run every appliance with this many CPUs of its own (a cgroup v1 CFS quota), as if each were its own machine, then with the machine's CPUs shared (0: shared only)")
	fs.StringVar(&o.pprofDir, "pprof", "", "directory for CPU and heap profiles of the server (in-process server, or rackbootd with server.pprof_listen: -kube saves heap profiles after the Agents settle, after the list and after the watch runs, and CPU profiles of the list runs and the watch writes)")
	fs.BoolVar(&o.kube, "kube", false, "instead of the two phases: the hosts' Agents through the Kubernetes-compatible API: kubectl get agents -A and watch delays (rackbootd binary only)")
	fs.BoolVar(&o.kubePoll, "kube-poll", false, "with -kube: the hosts keep polling (60 s) while the API is measured (off: they stop after registering and engine.disconnect_after is 1h so they stay connected)")
	fs.StringVar(&o.kubectl, "kubectl", "/usr/bin/kubectl", "with -kube: the kubectl binary")
	fs.IntVar(&o.watchers, "watchers", 100, "with -kube: concurrent watchers of every Agent")
	fs.IntVar(&o.writes, "writes", 200, "with -kube: Agent writes timed at every watcher")
	fs.DurationVar(&o.writeGap, "write-gap", 50*time.Millisecond, "with -kube: pause between two timed writes")
	fs.DurationVar(&o.watchLimit, "watch-limit", 5*time.Minute, "with -kube: the watch phase is cut off (and reported so) after this long")
	fs.IntVar(&o.kubectlRuns, "kubectl-runs", 3, "with -kube: timed runs of kubectl get agents -A")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case o.kube && (o.watchers < 1 || o.watchers > 1000 || o.writes < 1 || o.writes > 10000 || o.kubectlRuns < 1 || o.writeGap < 0):
		err := fmt.Errorf("%w: -watchers 1..1000, -writes 1..10000, -kubectl-runs ≥ 1, -write-gap ≥ 0", ErrUsage)
		fmt.Fprintln(stderr, err)
		return o, err
	case fs.NArg() > 0:
		err := fmt.Errorf("%w: unexpected arguments %q", ErrUsage, fs.Args())
		fmt.Fprintln(stderr, err)
		return o, err
	case o.hosts < 1 || o.hosts > maxHosts, o.concurrency < 1 || o.concurrency > 10000,
		o.interval < time.Second, o.pollFor < 0 || o.pollFor > time.Hour, o.nice < -20 || o.nice > 19,
		o.rack < 0 || o.rack > 5, o.rounds < 1 || o.rounds > 10, o.applianceCPU < 0 || o.applianceCPU > 64:
		err := fmt.Errorf("%w: -hosts 1..%d, -concurrency 1..10000, -interval ≥ 1s, -poll 0..1h, -nice -20..19, -rack 0..5, -rounds 1..10, -appliance-cpu 0..64", ErrUsage, maxHosts)
		fmt.Fprintln(stderr, err)
		return o, err
	}
	return o, nil
}

// bench runs both phases and writes the report.
func bench(ctx context.Context, o options, stdout io.Writer) (err error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute+o.pollFor)
	defer cancel()
	raiseFileLimit()
	niceErr := setNice(o.nice)
	if niceErr != nil {
		fmt.Fprintln(os.Stderr, "agents:", niceErr, "(running at the inherited priority)")
	}
	work := o.work
	if work == "" {
		if work, err = os.MkdirTemp("", "rackboot-agents-"); err != nil {
			return err
		}
	}
	if !o.keep {
		defer os.RemoveAll(work)
	}
	if o.rack > 0 {
		return benchRack(ctx, o, work, niceErr == nil, stdout)
	}
	nice := 0
	if niceErr == nil {
		nice = o.nice
	}
	kind := o.server
	if o.kube {
		kind = kindBinary
	}
	extra := ""
	if o.kube && !o.kubePoll {
		extra = "\n[engine]\ndisconnect_after = \"1h\"\n"
	}
	srv, err := startServer(ctx, serverOpts{kind: kind, bin: o.bin, work: work, contention: o.pprofDir != "", nice: nice, extraTOML: extra})
	if err != nil {
		return err
	}
	defer srv.stop()
	if o.kube {
		kr, err := benchKube(ctx, o, srv, work)
		if err != nil {
			return err
		}
		return writeReport(kr.markdown(), o.out, stdout)
	}
	res := &result{opts: o, args: os.Args, started: time.Now(), serverKind: srv.kind, niceApplied: niceErr == nil}
	if err := measure(ctx, o, srv, res); err != nil {
		return err
	}
	return writeReport(res.markdown(), o.out, stdout)
}

// writeReport prints md and writes it to out (unless "").
func writeReport(md, out string, stdout io.Writer) error {
	fmt.Fprint(stdout, md)
	if out != "" {
		if err := os.WriteFile(out, []byte(md), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", out, err)
		}
	}
	return nil
}

// measure runs the phases against srv and fills res.
func measure(ctx context.Context, o options, srv *server, res *result) error {
	ac, err := srv.createInfraEnv(ctx)
	if err != nil {
		return err
	}
	sim, err := newSimulator(ac, o.hosts, o.concurrency, runTag(), nil)
	if err != nil {
		return err
	}
	res.sim = sim
	mem := &memSampler{pid: srv.pid()}
	mctx, mstop := context.WithCancel(ctx)
	defer mstop()
	go mem.run(mctx, 250*time.Millisecond)

	before := takeSnap(ctx, srv)
	srv.serverSide(ctx, true)
	prof := startProfile(ctx, o.pprofDir, srv, "register", 20*time.Second)
	res.registerTime, res.registerFailed = sim.registerAll(ctx, o.concurrency)
	afterReg := takeSnap(ctx, srv)
	prof.wait()
	res.phases = append(res.phases, diffSnaps("registration", before, afterReg, o.hosts, "host"))
	res.phases[0].Server = srv.serverSide(ctx, false)
	saveProfiles(ctx, o.pprofDir, srv, "register")
	if res.withInventory, res.statuses, err = srv.countHosts(ctx, ac.InfraEnvID); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if o.pollFor > 0 {
		start := takeSnap(ctx, srv)
		srv.serverSide(ctx, true)
		prof := startProfile(ctx, o.pprofDir, srv, "poll", min(o.pollFor, 60*time.Second))
		sim.onStall = func() { go saveGoroutines(ctx, o.pprofDir, srv, "stall") }
		res.polls = sim.pollAll(ctx, o.interval, o.pollFor, srv.pid())
		end := takeSnap(ctx, srv)
		server := srv.serverSide(ctx, false)
		prof.wait()
		res.phases = append(res.phases, diffSnaps("steady polling", start, end, res.polls, "poll"))
		res.phases[len(res.phases)-1].Server = server
		saveProfiles(ctx, o.pprofDir, srv, "poll")
	}
	mstop()
	res.mem, res.memSamples = mem.result()
	if m, err := readMemory(srv.pid()); err == nil {
		res.mem.HWM = max(res.mem.HWM, m.HWM)
	}
	return ctx.Err()
}

// countHosts lists the infra-env's hosts with the admin token and counts
// those with an inventory, and the hosts per status.
func (s *server) countHosts(ctx context.Context, ieID string) (int, map[string]int, error) {
	out, err := s.admin(ctx, "GET", "/infra-envs/"+ieID+"/hosts", nil, 200)
	if err != nil {
		return 0, nil, err
	}
	var hosts []struct {
		Status    string `json:"status"`
		Inventory string `json:"inventory"`
	}
	if err := json.Unmarshal(out, &hosts); err != nil {
		return 0, nil, fmt.Errorf("%w: host list: %w", ErrSetup, err)
	}
	n, statuses := 0, map[string]int{}
	for _, h := range hosts {
		statuses[h.Status]++
		if strings.TrimSpace(h.Inventory) != "" {
			n++
		}
	}
	return n, statuses, nil
}

// runTag makes this run's host ids unique.
func runTag() uint16 {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return binary.BigEndian.Uint16(b[:])
}

// raiseFileLimit lifts the soft open-file limit to the hard one, for this
// process and the server it starts (10,000 agents' connections).
func raiseFileLimit() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Cur < l.Max {
		l.Cur = l.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}

// setNice sets the scheduling priority of every thread of this process
// (Linux keeps it per thread; threads started later inherit it from the
// thread that starts them); 0 leaves it. The server gets it through
// nice(1) (server.go).
func setNice(n int) error {
	if n == 0 {
		return nil
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("nice %d: %w", n, err)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, n); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("nice %d: %w", n, err)
		}
	}
	return nil
}
