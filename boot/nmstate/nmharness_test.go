package nmstate

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rackboot/rackboot/testbed/netns"
)

// The real-NetworkManager tests run NetworkManager (Debian package
// network-manager) in a network namespace, in a private mount and UTS
// namespace where /run/NetworkManager, /var/lib/NetworkManager and
// /etc/NetworkManager are the test's own directories, on a private system
// D-Bus. /sys is mounted read-only there so NetworkManager
// does not wait for udev. The host's network, hostname and resolv.conf
// are not touched.

func nmAvailable(t *testing.T) {
	t.Helper()
	if err := netns.Available(); err != nil {
		t.Skip(err)
	}
	for _, bin := range []string{"NetworkManager", "nmcli", "dbus-daemon", "unshare", "nsenter"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s not installed (apt-get install network-manager): %v", bin, err)
		}
	}
}

type nmRun struct {
	t   *testing.T
	ctx context.Context
	ns  *netns.NS
	tmp string
	bus string // D-Bus address of the private system bus
	log *lineLog
}

// startNM runs NetworkManager over the keyfiles in dir inside ns.
func startNM(t *testing.T, ctx context.Context, ns *netns.NS, files []File) *nmRun {
	t.Helper()
	tmp := t.TempDir()
	for _, d := range []string{"conns", "run", "lib", "etc"} {
		if err := os.Mkdir(filepath.Join(tmp, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		if strings.HasSuffix(f.Name, ".nmconnection") {
			if err := os.WriteFile(filepath.Join(tmp, "conns", filepath.Base(f.Name)), f.Data, FileMode); err != nil {
				t.Fatal(err)
			}
		}
	}
	conf := fmt.Sprintf(`[main]
plugins=keyfile
no-auto-default=*
dhcp=internal
dns=default
rc-manager=unmanaged
hostname-mode=none

[keyfile]
path=%s/conns

[logging]
level=INFO
`, tmp)
	if err := os.WriteFile(filepath.Join(tmp, "nm.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	bus := startBus(t, ctx)
	script := fmt.Sprintf(`set -e
T=%s
mkdir -p /run/NetworkManager /var/lib/NetworkManager /etc/NetworkManager
mount --bind $T/run /run/NetworkManager
mount --bind $T/lib /var/lib/NetworkManager
mount --bind $T/etc /etc/NetworkManager
exec nsenter --net=/run/netns/%s sh -c 'mount -t sysfs -o ro sysfs /sys && exec NetworkManager --debug --config '$T/nm.conf
`, tmp, ns.Name)
	cmd := exec.Command("unshare", "--mount", "--uts", "--propagation", "private", "sh", "-c", script)
	cmd.Env = append(os.Environ(), "DBUS_SYSTEM_BUS_ADDRESS="+bus)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = cmd.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &nmRun{t: t, ctx: ctx, ns: ns, tmp: tmp, bus: bus, log: newLineLog(stderr)}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM) // exec chain: this pid is NetworkManager
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("NetworkManager log:\n%s", r.log.String())
		}
	})
	return r
}

// busConfig is a private system bus: anything goes, and no service
// activation (so no helper processes outlive the bus).
const busConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
`

// startBus runs a private system D-Bus and returns its address once it
// accepts connections; cleanup stops it. The socket lives in a short
// directory of its own: unix socket paths are limited to 108 bytes.
func startBus(t *testing.T, ctx context.Context) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "nmbus")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "bus")
	conf := filepath.Join(dir, "bus.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(busConfig, socket)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "dbus-daemon", "--config-file="+conf, "--nofork", "--nopidfile", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	// dbus-daemon prints its address once it listens.
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatalf("dbus-daemon: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return "unix:path=" + socket
}

// nmcli runs nmcli against this run's private D-Bus.
func (r *nmRun) nmcli(args ...string) (string, error) {
	cmd := exec.CommandContext(r.ctx, "nmcli", args...)
	cmd.Env = append(os.Environ(), "DBUS_SYSTEM_BUS_ADDRESS="+r.bus)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// waitFor polls cond until it holds or the deadline passes.
func (r *nmRun) waitFor(what string, cond func() (bool, string)) {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	last := ""
	for time.Now().Before(deadline) {
		var ok bool
		if ok, last = cond(); ok {
			return
		}
		select {
		case <-tick.C:
		case <-r.ctx.Done():
			r.t.Fatalf("%s: %v", what, r.ctx.Err())
		}
	}
	r.t.Fatalf("timed out waiting for %s; last state:\n%s", what, last)
}

// lineLog collects a process's output and lets tests wait for a line.
type lineLog struct {
	mu    sync.Mutex
	lines []string
	grew  chan struct{}
}

func newLineLog(rd io.Reader) *lineLog {
	l := &lineLog{grew: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(rd)
		for sc.Scan() {
			l.mu.Lock()
			l.lines = append(l.lines, sc.Text())
			close(l.grew)
			l.grew = make(chan struct{})
			l.mu.Unlock()
		}
	}()
	return l
}

func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// waitLine waits for a line containing s.
func (l *lineLog) waitLine(ctx context.Context, s string) error {
	for {
		l.mu.Lock()
		for _, line := range l.lines {
			if strings.Contains(line, s) {
				l.mu.Unlock()
				return nil
			}
		}
		grew := l.grew
		l.mu.Unlock()
		select {
		case <-grew:
		case <-ctx.Done():
			return fmt.Errorf("no log line with %q: %w", s, ctx.Err())
		}
	}
}

// addNICs creates one veth per mac_interface.ini line in ns, named and
// addressed as the line says, with its peer up in peer so it has carrier.
func addNICs(t *testing.T, ctx context.Context, ns, peer *netns.NS, macINI []byte) {
	t.Helper()
	for i, line := range strings.Fields(string(macINI)) {
		mac, name, _ := strings.Cut(line, "=")
		p := fmt.Sprintf("p%d", i)
		out, err := exec.CommandContext(ctx, "ip", "link", "add", name, "netns", ns.Name, "address", mac,
			"type", "veth", "peer", "name", p, "netns", peer.Name).CombinedOutput()
		if err != nil {
			t.Fatalf("veth %s: %v: %s", name, err, out)
		}
		if err := peer.IP(ctx, "link", "set", p, "up"); err != nil {
			t.Fatal(err)
		}
	}
}
