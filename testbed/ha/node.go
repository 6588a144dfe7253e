package ha

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rackboot/rackboot/testbed/netns"
)

// Node is one appliance of the rack.
type Node struct {
	Index int
	Name  string     // node0, node1, ...
	NS    *netns.NS  // its namespace, with eth0 on the bridge
	Addr  netip.Addr // its own address on eth0
	MAC   string     // eth0's hardware address
	Dir   string     // config, log, data directory

	bedIf string // the bridge end of its veth
	rack  *Rack

	tmpfs bool // its data directory is a tmpfs (UseTmpfs)

	mu   sync.Mutex
	proc *process
}

// process is one run of rackbootd.
type process struct {
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
	err  error // set before done closes
}

// DataDir is the node's data_dir.
func (n *Node) DataDir() string { return filepath.Join(n.Dir, "state") }

// ConfigPath is the node's rackboot.toml.
func (n *Node) ConfigPath() string { return filepath.Join(n.Dir, "rackboot.toml") }

// LogPath is the file every run of the node appends its output to.
func (n *Node) LogPath() string { return filepath.Join(n.Dir, "rackbootd.log") }

// URL is the node's own HTTP base URL.
func (n *Node) URL() string { return fmt.Sprintf("http://%s:%d", n.Addr, HTTPPort) }

// RaftAddr is the node's raft address.
func (n *Node) RaftAddr() string { return fmt.Sprintf("%s:%d", n.Addr, RaftPort) }

// Start runs rackbootd in the node's namespace; it does not wait for it to
// serve (a node of a cluster without quorum may not).
func (n *Node) Start(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc != nil && !n.proc.exited() {
		return fmt.Errorf("%w: %s is already running", ErrRack, n.Name)
	}
	log, err := os.OpenFile(n.LogPath(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRack, err)
	}
	fmt.Fprintf(log, "=== ha testbed: start %s at %s\n", n.Name, time.Now().UTC().Format(time.RFC3339Nano))
	// `ip netns exec` execs rackbootd in place: the pid is rackbootd's. It
	// is not bound to ctx: the rack decides when it dies.
	cmd := exec.Command("ip", "netns", "exec", n.NS.Name, n.rack.opts.Binary, "--config", n.ConfigPath())
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // no daemon outlives a killed test
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("%w: start %s: %w", ErrRack, n.Name, err)
	}
	p := &process{cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		log.Close()
		close(p.done)
	}()
	n.proc = p
	n.rack.opts.Logf("%s started (pid %d)", n.Name, cmd.Process.Pid)
	return nil
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Running reports whether the node's rackbootd runs.
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.proc != nil && !n.proc.exited()
}

// PID is the process id of the node's running rackbootd (0 when it is not
// running), for a benchmark that measures or limits it.
func (n *Node) PID() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil || n.proc.exited() {
		return 0
	}
	return n.proc.cmd.Process.Pid
}

// Exited is closed when the current run ends (nil when never started).
func (n *Node) Exited() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil {
		return nil
	}
	return n.proc.done
}

// Kill sends SIGKILL and waits for the process to end.
func (n *Node) Kill() error { return n.signal(syscall.SIGKILL) }

// Stop sends SIGTERM and waits for the process to end.
func (n *Node) Stop() error { return n.signal(syscall.SIGTERM) }

func (n *Node) signal(sig syscall.Signal) error {
	n.mu.Lock()
	p := n.proc
	n.mu.Unlock()
	if p == nil || p.exited() {
		return nil
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrRack, n.Name, err)
	}
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%w: %s did not end within 30 s of %s", ErrRack, n.Name, sig)
	}
	n.rack.opts.Logf("%s ended on %s", n.Name, sig)
	return nil
}

// WaitHealthy waits until the node answers /healthz with 200 on its own
// address, or its process ends.
func (n *Node) WaitHealthy(ctx context.Context) error {
	c := n.rack.HTTP(2 * time.Second)
	done := n.Exited()
	err := poll(ctx, 100*time.Millisecond, func() (bool, error) {
		select {
		case <-done:
			return false, fmt.Errorf("%w: %s exited: %s", ErrRack, n.Name, n.Tail(20))
		default:
		}
		resp, err := c.Get(n.URL() + "/healthz")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		return fmt.Errorf("%s /healthz: %w", n.Name, err)
	}
	return nil
}

// Log is everything the node's runs wrote.
func (n *Node) Log() string {
	b, _ := os.ReadFile(n.LogPath())
	return string(b)
}

// Tail is the last lines of Log.
func (n *Node) Tail(lines int) string {
	l := strings.Split(strings.TrimRight(n.Log(), "\n"), "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}

// Cut pulls the node's cable: the bridge end of its veth goes down, so
// the node's eth0 loses carrier; the node's own configuration is untouched.
func (n *Node) Cut(ctx context.Context) error {
	n.rack.opts.Logf("%s cut off", n.Name)
	return n.rack.Bed.IP(ctx, "link", "set", n.bedIf, "down")
}

// Restore plugs the cable back in.
func (n *Node) Restore(ctx context.Context) error {
	n.rack.opts.Logf("%s reconnected", n.Name)
	return n.rack.Bed.IP(ctx, "link", "set", n.bedIf, "up")
}

// HoldsVIP reports whether the node's namespace has the service address
// (rackbootd puts it on the loopback and answers ARP for it on eth0 while
// it leads).
func (n *Node) HoldsVIP(ctx context.Context) (bool, error) {
	out, err := n.NS.Run(ctx, "ip", "-4", "-o", "addr", "show")
	if err != nil {
		return false, err
	}
	return strings.Contains(out, fmt.Sprintf(" %s/", ServiceAddr)), nil
}

// AdminToken is the admin token in the node's data directory.
func (n *Node) AdminToken() (string, error) {
	b, err := os.ReadFile(filepath.Join(n.DataDir(), "admin-token"))
	if err != nil {
		return "", fmt.Errorf("%w: %s's admin token: %w", ErrRack, n.Name, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// UseTmpfs mounts a tmpfs of sizeMiB over the node's data directory (before
// its first start), so that a test can fill it up; the rack unmounts it at
// Close.
func (n *Node) UseTmpfs(ctx context.Context, sizeMiB int) error {
	if out, err := exec.CommandContext(ctx, "mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%dm,mode=0750", sizeMiB), "tmpfs", n.DataDir()).CombinedOutput(); err != nil {
		return fmt.Errorf("%w: mount tmpfs on %s: %w: %s", ErrRack, n.DataDir(), err, out)
	}
	n.tmpfs = true
	return n.rack.seedToken(n)
}

// FillDisk writes a file into the data directory until the file system
// is full; it returns how many bytes it wrote.
func (n *Node) FillDisk() (int64, error) {
	f, err := os.Create(filepath.Join(n.DataDir(), "filler"))
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrRack, err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var total int64
	for {
		w, err := f.Write(buf)
		total += int64(w)
		if err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return total, nil
			}
			return total, fmt.Errorf("%w: filling %s: %w", ErrRack, n.DataDir(), err)
		}
	}
}

// FreeDisk removes what FillDisk wrote.
func (n *Node) FreeDisk() error {
	return os.Remove(filepath.Join(n.DataDir(), "filler"))
}
