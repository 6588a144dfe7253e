package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/rackboot/rackboot/bench/internal/harness"
	"github.com/rackboot/rackboot/bench/internal/peers"
	"github.com/rackboot/rackboot/bench/internal/report"
)

func machine(ctx context.Context, command, workDir string) report.Machine {
	m := report.Machine{
		Command:  command,
		Date:     time.Now(),
		CPUs:     runtime.NumCPU(),
		CPUModel: firstField("/proc/cpuinfo", "model name"),
		Kernel:   strings.TrimSpace(readFile("/proc/sys/kernel/osrelease")),
		OS:       strings.Trim(firstField("/etc/os-release", "PRETTY_NAME="), `"`) + " (" + strings.TrimSpace(readFile("/etc/debian_version")) + ")",
		Go:       runtime.Version(),
		Packages: map[string]string{},
		LoadAvg:  [2]string{harness.LoadAvg()},
	}
	if kb, err := strconv.ParseInt(strings.Fields(firstField("/proc/meminfo", "MemTotal") + " 0")[0], 10, 64); err == nil {
		m.MemTotal = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
	}
	if out, err := exec.CommandContext(ctx, "findmnt", "-n", "-o", "FSTYPE,SOURCE", "--target", workDir).Output(); err == nil {
		m.Storage = strings.Join(strings.Fields(string(out)), " on ")
	}
	if out, err := exec.CommandContext(ctx, "git", "describe", "--always", "--dirty").Output(); err == nil {
		m.Rackboot = strings.TrimSpace(string(out))
	}
	for _, p := range peers.Packages() {
		m.Packages[p] = peers.Version(ctx, p)
		m.Order = append(m.Order, p)
	}
	return m
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// firstField returns the value of the first line of path starting with key
// ("key: value" or "KEY=value").
func firstField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, key) {
			continue
		}
		v := strings.TrimPrefix(line, key)
		v = strings.TrimLeft(v, " \t:=")
		return strings.TrimSpace(v)
	}
	return "unknown"
}

// busy reports whether a load average line says other work competed for
// the CPUs: a 1-minute load above 1.5 × the CPU count (the benchmark itself
// keeps at most about two processes busy).
func busy(load string) bool {
	f := strings.Fields(load)
	if len(f) == 0 {
		return false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return err == nil && v > float64(runtime.NumCPU())*1.5
}
