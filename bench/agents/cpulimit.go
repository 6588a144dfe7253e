package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// ErrCPULimit: an appliance's CPU budget could not be set.
var ErrCPULimit = errors.New("agents: CPU budget")

// cpuRoot is the cgroup v1 cpu controller's mount (the machine this runs
// on mounts v1 controllers; see /proc/self/mountinfo).
const cpuRoot = "/sys/fs/cgroup/cpu"

// cfsPeriod is the CFS period every budget is expressed in (µs).
const cfsPeriod = 100_000

// cpuBudgets gives each appliance of a rack its own CPU budget, as if it
// were its own machine: one cgroup per appliance under a group of this
// run, each allowed cpus CPUs' worth of time per period.
type cpuBudgets struct {
	dir  string // this run's group
	cpus float64
}

// newCPUBudgets makes the cgroup of one rack (run names it); cpus ≤ 0
// means no budget (nil).
func newCPUBudgets(run string, cpus float64) (*cpuBudgets, error) {
	if cpus <= 0 {
		return nil, nil
	}
	dir := filepath.Join(cpuRoot, fmt.Sprintf("rackboot-agents-%d-%s", os.Getpid(), run))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w (needs root and the cgroup v1 cpu controller at %s)", ErrCPULimit, err, cpuRoot)
	}
	return &cpuBudgets{dir: dir, cpus: cpus}, nil
}

// limit moves process pid (all its threads) into the cgroup named name,
// made with the budget if it does not exist.
func (b *cpuBudgets) limit(name string, pid int) error {
	if b == nil {
		return nil
	}
	g := filepath.Join(b.dir, name)
	if err := os.MkdirAll(g, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrCPULimit, err)
	}
	quota := int(b.cpus * cfsPeriod)
	for _, w := range []struct{ file, value string }{
		{"cpu.cfs_period_us", strconv.Itoa(cfsPeriod)},
		{"cpu.cfs_quota_us", strconv.Itoa(quota)},
		{"cgroup.procs", strconv.Itoa(pid)},
	} {
		if err := os.WriteFile(filepath.Join(g, w.file), []byte(w.value), 0o644); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrCPULimit, w.file, err)
		}
	}
	return nil
}

// remove deletes the groups once their processes have exited (a group
// with a process in it cannot be removed; it is left behind, named).
func (b *cpuBudgets) remove() error {
	if b == nil {
		return nil
	}
	entries, _ := os.ReadDir(b.dir)
	var errs []error
	for _, e := range entries {
		if e.IsDir() {
			errs = append(errs, os.Remove(filepath.Join(b.dir, e.Name())))
		}
	}
	errs = append(errs, os.Remove(b.dir))
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w: remove %s: %w", ErrCPULimit, b.dir, err)
	}
	return nil
}
