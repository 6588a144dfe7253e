package proc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rackboot/rackboot/testbed/netns"
)

// ErrStart is returned when a server process cannot be started.
var ErrStart = errors.New("proc: cannot start server")

// Proc is a running server process.
type Proc struct {
	Name string
	cmd  *exec.Cmd
	done chan error
	log  *os.File
	cg   *cgroup // nil when no cgroup could be made: CPU falls back to /proc
}

// Start runs argv inside ns with stdout and stderr appended to logPath.
// `ip netns exec` execs the command, so the process id is the server's own.
func Start(ctx context.Context, ns *netns.NS, name, logPath string, env []string, argv ...string) (*Proc, error) {
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrStart, name, err)
	}
	full := append([]string{"ip", "netns", "exec", ns.Name}, argv...)
	cg := newCgroup(name)
	if cg != nil {
		// The shell joins the cgroup, then execs: the server and every
		// process it forks are accounted there from their first instruction.
		full = append([]string{"sh", "-c", `echo $$ > "$0" && exec "$@"`, cg.procs}, full...)
	}
	// Not CommandContext: the caller decides when the server stops.
	cmd := exec.Command(full[0], full[1:]...)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		lf.Close()
		cg.remove()
		return nil, fmt.Errorf("%w: %s: %w", ErrStart, name, err)
	}
	p := &Proc{Name: name, cmd: cmd, done: make(chan error, 1), log: lf, cg: cg}
	go func() { p.done <- cmd.Wait() }()
	return p, nil
}

// PID is the server's process id.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Exited reports whether the process has already exited.
func (p *Proc) Exited() bool {
	select {
	case err := <-p.done:
		p.done <- err
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM to the process group, waits up to 5 s, then SIGKILLs it.
func (p *Proc) Stop() {
	defer p.cg.remove()
	defer p.log.Close()
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
		return
	case <-time.After(5 * time.Second):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-p.done
}

// Mem is a process's resident memory, from /proc/PID/status.
type Mem struct {
	RSSKiB int64 // VmRSS
	HWMKiB int64 // VmHWM, the peak RSS
}

// Memory reads VmRSS and VmHWM of the process.
func (p *Proc) Memory() (Mem, error) {
	return ReadMem(p.PID())
}

// ReadMem reads VmRSS and VmHWM of pid.
func ReadMem(pid int) (Mem, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Mem{}, fmt.Errorf("proc: read memory: %w", err)
	}
	defer f.Close()
	var m Mem
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			m.RSSKiB = n
		case "VmHWM":
			m.HWMKiB = n
		}
	}
	return m, sc.Err()
}

// WaitReady calls probe until it succeeds, the process exits, or the
// deadline passes.
func (p *Proc) WaitReady(ctx context.Context, timeout time.Duration, probe func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if p.Exited() {
			return fmt.Errorf("%w: %s exited during start-up (see its log): %v", ErrStart, p.Name, last)
		}
		pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
		last = probe(pctx)
		pcancel()
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %s not ready after %s: %w", ErrStart, p.Name, timeout, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// clockTick is the unit of utime and stime in /proc/PID/stat (USER_HZ,
// 100 on every Linux architecture this runs on).
const clockTick = 10 * time.Millisecond

// CPU returns the CPU time (user + system) the process and every process
// below it have used so far, including exited children it has waited for. Other work on the machine does not change it,
// so it compares servers even when the wall-clock numbers are noisy.
func (p *Proc) CPU() time.Duration {
	if d, ok := p.cg.usage(); ok {
		return d
	}
	return treeCPU(p.PID())
}

func treeCPU(pid int) time.Duration {
	total := ownCPU(pid)
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		for _, c := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(c); err == nil {
				total += treeCPU(n)
			}
		}
	}
	return total
}

func ownCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may contain spaces; fields after it are fixed.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 15 {
		return 0
	}
	// utime, stime, and cutime, cstime: the CPU time of children that have
	// exited and been waited for (tftpd-hpa forks one per transfer).
	var ticks int64
	for _, v := range f[11:15] {
		n, _ := strconv.ParseInt(v, 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * clockTick
}
