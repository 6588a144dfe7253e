package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/rackboot/rackboot/testbed/ha"
)

// ErrRack: the -rack run could not build or use a rack.
var ErrRack = errors.New("agents: rack")

// stormRun is one registration storm against one rack.
type stormRun struct {
	appliances, round int
	cpus              float64 // each appliance's CPU budget (0: the machine's CPUs, shared)
	hosts, failed     int
	withInventory     int // hosts with an inventory, counted through a follower when there is one
	countedVia        string
	elapsed           time.Duration
	register, instr   summary
	reply             summary
}

func (r stormRun) rate() float64 { return float64(r.hosts-r.failed) / r.elapsed.Seconds() }

// rackStorm runs the registration storm against a rack of one appliance
// and a rack of o.rack appliances, o.rounds times each, alternating, and
// returns the runs in order.
func rackStorm(ctx context.Context, o options, work string) ([]stormRun, error) {
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("%w: -rack builds network namespaces (testbed/ha): run it as root", ErrRack)
	}
	var runs []stormRun
	for _, cpus := range budgetModes(o.applianceCPU) {
		for round := 1; round <= o.rounds; round++ {
			for _, n := range []int{1, o.rack} {
				name := fmt.Sprintf("rack%d-cpu%g-round%d", n, cpus, round)
				run, err := stormOnRack(ctx, o, n, cpus, filepath.Join(work, name))
				if err != nil {
					return runs, fmt.Errorf("%s: %w", name, err)
				}
				run.round = round
				runs = append(runs, run)
				fmt.Fprintf(os.Stderr, "agents: %s: %d hosts in %s (%.0f/s, %d failed)\n",
					name, run.hosts, run.elapsed.Round(time.Millisecond), run.rate(), run.failed)
			}
		}
	}
	return runs, nil
}

// budgetModes are the CPU budgets to run under: each appliance with cpus
// CPUs of its own (when > 0), then the machine's CPUs shared by all.
func budgetModes(cpus float64) []float64 {
	if cpus > 0 {
		return []float64{cpus, 0}
	}
	return []float64{0}
}

// stormOnRack builds a rack of n appliances in dir (testbed/ha: each
// rackbootd in its own namespace, the simulator's connections made in the
// client namespace), registers o.hosts hosts through the service address
// and counts them through another appliance's own address.
func stormOnRack(ctx context.Context, o options, n int, cpus float64, dir string) (_ stormRun, err error) {
	run := stormRun{appliances: n, hosts: o.hosts, cpus: cpus}
	r, err := ha.New(ctx, ha.Options{Nodes: n, Binary: o.bin, Dir: dir, LogLevel: "info"})
	if err != nil {
		return run, err
	}
	budgets, err := newCPUBudgets(filepath.Base(dir), cpus)
	if err != nil {
		r.Close()
		return run, err
	}
	defer func() {
		r.Close() // first: a group can be removed once its process has exited
		err = errors.Join(err, budgets.remove())
	}()
	leader, err := startRack(ctx, r)
	if err != nil {
		return run, err
	}
	for _, nd := range r.Nodes {
		if err := budgets.limit(nd.Name, nd.PID()); err != nil {
			return run, err
		}
	}
	srv := &server{kind: kindRack, base: ha.ServiceURL(), token: r.Token(), http: r.HTTP(time.Minute)}
	ac, err := srv.createInfraEnv(ctx)
	if err != nil {
		return run, err
	}
	dial := r.HTTP(0).Transport.(*http.Transport).DialContext
	sim, err := newSimulator(ac, o.hosts, o.concurrency, runTag(), dial)
	if err != nil {
		return run, err
	}
	run.elapsed, run.failed = sim.registerAll(ctx, o.concurrency)
	run.register, run.instr, run.reply = sim.register.summarize(), sim.instructions.summarize(), sim.reply.summarize()
	counter, via := srv, "the service address"
	for _, nd := range r.Nodes {
		if nd != leader {
			counter = &server{kind: kindRack, base: nd.URL(), token: r.Token(), http: srv.http}
			via = nd.Name + "'s own address (a follower)"
			break
		}
	}
	if run.withInventory, _, err = counter.countHosts(ctx, ac.InfraEnvID); err != nil {
		return run, err
	}
	run.countedVia = via
	return run, nil
}

// startRack starts r's appliances and waits until the leader holds the
// service address; it returns the leader.
func startRack(ctx context.Context, r *ha.Rack) (*ha.Node, error) {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	if err := r.Start(ctx); err != nil {
		return nil, err
	}
	l, err := r.Leader(ctx)
	if err != nil {
		return nil, err
	}
	h, err := r.WaitVIP(ctx)
	if err != nil {
		return nil, err
	}
	if h != l {
		return nil, fmt.Errorf("%w: the service address is on %s, the leader is %s", ErrRack, h.Name, l.Name)
	}
	return l, nil
}
