package netns

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// ErrUnavailable is returned when namespaces cannot be built here (not root,
// or iproute2 missing).
var ErrUnavailable = errors.New("netns: network namespaces need root and iproute2")

// Available reports whether this process can build namespaces.
func Available() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: not running as root", ErrUnavailable)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return nil
}

// NS is a network namespace created by New. Close deletes it and everything
// inside it.
type NS struct {
	Name string
}

var seq atomic.Uint32 // only used to keep names unique within one process

// New creates a fresh namespace whose name starts with prefix, with lo up.
func New(ctx context.Context, prefix string) (*NS, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%s-%d-%d", prefix, os.Getpid(), seq.Add(1))
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	if err := ip(ctx, "netns", "add", name); err != nil {
		return nil, err
	}
	ns := &NS{Name: name}
	if err := ns.IP(ctx, "link", "set", "lo", "up"); err != nil {
		ns.Close()
		return nil, err
	}
	return ns, nil
}

// IP runs `ip -n NS args...`.
func (ns *NS) IP(ctx context.Context, args ...string) error {
	return ip(ctx, append([]string{"-n", ns.Name}, args...)...)
}

// Command returns a command that runs inside the namespace.
func (ns *NS) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns.Name, name}, args...)...)
}

// Run runs a command inside the namespace and returns its combined output.
func (ns *NS) Run(ctx context.Context, name string, args ...string) (string, error) {
	out, err := ns.Command(ctx, name, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("netns %s: %s %s: %w: %s", ns.Name, name, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// AddBridge creates a bridge with the given address in CIDR form ("" for
// none) and brings it up.
func (ns *NS) AddBridge(ctx context.Context, name, cidr string) error {
	if err := ns.IP(ctx, "link", "add", name, "type", "bridge"); err != nil {
		return err
	}
	// Forward immediately: the default 15 s learning delay would eat the
	// first DHCP exchanges of a booting VM.
	if err := ns.IP(ctx, "link", "set", name, "type", "bridge", "forward_delay", "0", "stp_state", "0"); err != nil {
		return err
	}
	if cidr != "" {
		if err := ns.IP(ctx, "addr", "add", cidr, "dev", name); err != nil {
			return err
		}
	}
	return ns.IP(ctx, "link", "set", name, "up")
}

// AddTap creates a tap device attached to bridge, for a QEMU NIC.
func (ns *NS) AddTap(ctx context.Context, tap, bridge string) error {
	if err := ns.IP(ctx, "tuntap", "add", tap, "mode", "tap"); err != nil {
		return err
	}
	if err := ns.IP(ctx, "link", "set", tap, "master", bridge); err != nil {
		return err
	}
	return ns.IP(ctx, "link", "set", tap, "up")
}

// AddVethToBridge creates a veth pair: one end enslaved to bridge in ns, the
// other end moved into peer and renamed peerIf. cidr (may be "") is set on
// the peer end. mac (may be "") sets the peer end's hardware address.
func (ns *NS) AddVethToBridge(ctx context.Context, bridge string, peer *NS, peerIf, cidr, mac string) error {
	n := seq.Add(1)
	a, b := fmt.Sprintf("vb%d-%d", os.Getpid()%100000, n), fmt.Sprintf("vp%d-%d", os.Getpid()%100000, n)
	if err := ns.IP(ctx, "link", "add", a, "type", "veth", "peer", "name", b, "netns", peer.Name); err != nil {
		return err
	}
	if err := ns.IP(ctx, "link", "set", a, "master", bridge); err != nil {
		return err
	}
	if err := ns.IP(ctx, "link", "set", a, "up"); err != nil {
		return err
	}
	if err := peer.IP(ctx, "link", "set", b, "name", peerIf); err != nil {
		return err
	}
	if mac != "" {
		if err := peer.IP(ctx, "link", "set", peerIf, "address", mac); err != nil {
			return err
		}
	}
	if cidr != "" {
		if err := peer.IP(ctx, "addr", "add", cidr, "dev", peerIf); err != nil {
			return err
		}
	}
	if err := peer.IP(ctx, "link", "set", peerIf, "up"); err != nil {
		return err
	}
	// Return once frames pass: both ends have carrier and the bridge port
	// forwards. Right after "up" they may not yet, and a test's first
	// packets (a 1 s ping, an ARP) would be lost on a loaded machine.
	if err := peer.waitFor(ctx, peerIf, "operstate", "up"); err != nil {
		return err
	}
	if err := ns.waitFor(ctx, a, "operstate", "up"); err != nil {
		return err
	}
	return ns.waitFor(ctx, a, "brport/state", "3") // BR_STATE_FORWARDING
}

// waitFor polls /sys/class/net/<ifname>/<attr> inside ns until it reads
// want, for up to 10 s.
func (ns *NS) waitFor(ctx context.Context, ifname, attr, want string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var last string
	for {
		out, err := ns.Command(ctx, "cat", "/sys/class/net/"+ifname+"/"+attr).Output()
		if last = strings.TrimSpace(string(out)); err == nil && last == want {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("netns %s: %s %s is %q, not %q: %w", ns.Name, ifname, attr, last, want, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Close deletes the namespace. Processes still running inside keep it alive
// until they exit; callers stop their processes first.
func (ns *NS) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return ip(ctx, "netns", "del", ns.Name)
}

func ip(ctx context.Context, args ...string) error {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "ip", args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// Do runs fn on an OS thread switched into the namespace, then switches the
// thread back. Sockets created inside fn stay in the namespace for their whole
// life, so a test can run a server in-process on the namespace's interfaces:
//
//	var conn net.PacketConn
//	err := ns.Do(func() error { conn, err = net.ListenPacket("udp4", ":67"); return err })
func (ns *NS) Do(fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		// The thread is never unlocked: if switching back fails, the
		// goroutine exits locked and the runtime discards the thread.
		runtime.LockOSThread()
		orig, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			errc <- fmt.Errorf("netns: open own namespace: %w", err)
			return
		}
		defer orig.Close()
		target, err := os.Open("/run/netns/" + ns.Name)
		if err != nil {
			errc <- fmt.Errorf("netns: open %s: %w", ns.Name, err)
			return
		}
		defer target.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("netns: enter %s: %w", ns.Name, err)
			return
		}
		fnErr := fn()
		if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("netns: leave %s: %w", ns.Name, err)
			return
		}
		runtime.UnlockOSThread()
		errc <- fnErr
	}()
	return <-errc
}
