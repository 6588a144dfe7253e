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
}

// Start runs argv inside ns with stdout and stderr appended to logPath.
// `ip netns exec` execs the command, so the process id is the server's own.
func Start(ctx context.Context, ns *netns.NS, name, logPath string, env []string, argv ...string) (*Proc, error) {
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrStart, name, err)
	}
	// Not CommandContext: the caller decides when the server stops.
	cmd := exec.Command("ip", append([]string{"netns", "exec", ns.Name}, argv...)...)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		lf.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrStart, name, err)
	}
	p := &Proc{Name: name, cmd: cmd, done: make(chan error, 1), log: lf}
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
