package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// waitLimit bounds every wait on the daemon so that a broken daemon fails
// the test instead of hanging it; nothing is asserted about speed.
const waitLimit = 30 * time.Second

// testDaemon is rackbootd running as a subprocess with DHCP off, TFTP and
// HTTP on loopback ports, and a NOTIFY_SOCKET the test reads.
type testDaemon struct {
	t        *testing.T
	dir      string
	cmd      *exec.Cmd
	httpAddr string
	tftpAddr string
	notes    chan string // sd_notify datagrams
	exited   chan error  // gets the exit of the running process, put back once read
	stderr   *syncBuffer
	pid      int    // the daemon's process when cmd runs it as a child (strace); 0: cmd's
	conf     string // the configuration last written
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T, network string) string {
	t.Helper()
	switch network {
	case "tcp":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().String()
	default:
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.LocalAddr().String()
	}
}

const testMAC = "52-54-00-00-00-01"

// configText is a configuration serving profile files from the test's
// directory; cmdline and kernel vary between reloads.
func (d *testDaemon) configText(cmdline, kernel string) string {
	return fmt.Sprintf(`[server]
advertise = "127.0.0.1"
http_listen = %q
data_dir = "state"
log_level = "debug"

[tftp]
listen = %q
root = "tftp"

[[dhcp.reservation]]
mac = "52:54:00:00:00:01"
hostname = "node-1"

[[profile]]
name = "discovery"
kernel = %q
initrd = "initrd.img"
cmdline = %q
ignition = "discovery.ign"
`, d.httpAddr, d.tftpAddr, kernel, cmdline)
}

func (d *testDaemon) writeConfig(text string) {
	d.conf = text
	writeFile(d.t, d.dir, "rackboot.toml", text)
}

// startDaemon writes the files and the configuration and starts rackbootd
// with extra environment variables.
func startDaemon(t *testing.T, env ...string) *testDaemon {
	t.Helper()
	d := newTestDaemon(t, freePort(t, "tcp"), freePort(t, "udp"))
	d.writeConfig(d.configText("console=ttyS0", "vmlinuz"))
	d.start(nil, env...)
	return d
}

// newTestDaemon writes the profile files and listens on the notify socket.
func newTestDaemon(t *testing.T, httpAddr, tftpAddr string) *testDaemon {
	t.Helper()
	d := &testDaemon{t: t, dir: t.TempDir(), httpAddr: httpAddr, tftpAddr: tftpAddr,
		notes: make(chan string, 64)}
	// Larger than loopback socket buffers, so that a paused download keeps
	// the server's handler busy.
	writeFile(t, d.dir, "vmlinuz", strings.Repeat("old kernel ", 3<<20))
	writeFile(t, d.dir, "vmlinuz.new", "new kernel")
	writeFile(t, d.dir, "initrd.img", "initrd")
	writeFile(t, d.dir, "discovery.ign", `{"ignition":{"version":"3.4.0"}}`)
	writeFile(t, d.dir, "tftp/big.bin", strings.Repeat("0123456789abcdef", 64*1024))

	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: d.notifySocket(), Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				close(d.notes)
				return
			}
			d.notes <- string(buf[:n])
		}
	}()
	return d
}

func (d *testDaemon) notifySocket() string { return filepath.Join(d.dir, "notify.sock") }

// start runs rackbootd --config rackboot.toml, behind the command prefix
// (such as "ip netns exec NAME") when one is given.
func (d *testDaemon) start(prefix []string, env ...string) {
	t := d.t
	t.Helper()
	args := append(append(prefix, rackbootdBin), "--config", "rackboot.toml")
	d.cmd = exec.Command(args[0], args[1:]...)
	d.cmd.Dir = d.dir
	d.cmd.Env = append(os.Environ(), append(env, "NOTIFY_SOCKET="+d.notifySocket())...)
	d.stderr = &syncBuffer{}
	d.cmd.Stderr = d.stderr
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	d.exited = exited
	go func() { exited <- d.cmd.Wait() }()
	cmd, stderr := d.cmd, d.stderr
	t.Cleanup(func() {
		cmd.Process.Kill()
		err := <-exited
		exited <- err
		if t.Failed() {
			t.Logf("rackbootd stderr:\n%s", stderr.String())
		}
	})
}

// waitNote waits for a notification containing every one of want.
func (d *testDaemon) waitNote(want ...string) string {
	d.t.Helper()
	timeout := time.After(waitLimit)
	for {
		select {
		case n, ok := <-d.notes:
			if !ok {
				d.t.Fatalf("notify socket closed while waiting for %q", want)
			}
			if containsAll(n, want) {
				return n
			}
		case err := <-d.exited:
			d.exited <- err
			for _, n := range d.drain() {
				if containsAll(n, want) {
					return n
				}
			}
			d.t.Fatalf("rackbootd exited (%v) while waiting for %q:\n%s", err, want, d.stderr.String())
		case <-timeout:
			d.t.Fatalf("no notification with %q", want)
		}
	}
}

// drain returns the notifications not read yet. It sends a sentinel
// datagram of its own: whatever the daemon sent before it comes first.
func (d *testDaemon) drain() []string {
	d.t.Helper()
	const sentinel = "TEST-SENTINEL"
	conn, err := net.Dial("unixgram", d.notifySocket())
	if err != nil {
		d.t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(sentinel)); err != nil {
		d.t.Fatal(err)
	}
	var notes []string
	timeout := time.After(waitLimit)
	for {
		select {
		case n := <-d.notes:
			if n == sentinel {
				return notes
			}
			notes = append(notes, n)
		case <-timeout:
			d.t.Fatal("the sentinel notification never came back")
		}
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func (d *testDaemon) signal(sig syscall.Signal) {
	d.t.Helper()
	pid := d.cmd.Process.Pid
	if d.pid != 0 {
		pid = d.pid
	}
	if err := syscall.Kill(pid, sig); err != nil {
		d.t.Fatal(err)
	}
}

// reload sends SIGHUP and waits until the daemon is ready again, returning
// the READY notification (with its STATUS).
func (d *testDaemon) reload() string {
	d.t.Helper()
	d.signal(syscall.SIGHUP)
	d.waitNote("RELOADING=1", "MONOTONIC_USEC=")
	return d.waitNote("READY=1")
}

func (d *testDaemon) get(path string) string {
	d.t.Helper()
	resp, err := http.Get("http://" + d.httpAddr + path)
	if err != nil {
		d.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		d.t.Fatalf("GET %s: %s %v\n%s", path, resp.Status, err, body)
	}
	return string(body)
}

func (d *testDaemon) stop() {
	d.t.Helper()
	d.signal(syscall.SIGTERM)
	d.waitNote("STOPPING=1")
	select {
	case err := <-d.exited:
		d.exited <- err
		if err != nil {
			d.t.Fatalf("rackbootd exited with %v:\n%s", err, d.stderr.String())
		}
	case <-time.After(waitLimit):
		d.t.Fatal("rackbootd did not stop")
	}
}

// TestDaemonServesAndReloads: READY=1 comes, the script is served, a good
// reload changes it, a bad reload changes nothing and says so in STATUS.
func TestDaemonServesAndReloads(t *testing.T) {
	d := startDaemon(t)
	ready := d.waitNote("READY=1")
	if !strings.Contains(ready, "STATUS=serving: dhcp off, tftp "+d.tftpAddr) {
		t.Errorf("READY notification: %q", ready)
	}
	script := d.get("/boot/" + testMAC + "/script.ipxe")
	if !strings.Contains(script, "initrd=initrd console=ttyS0\n") {
		t.Fatalf("script:\n%s", script)
	}
	if got := d.get("/healthz"); got != "ok\n" {
		t.Errorf("/healthz = %q", got)
	}

	d.writeConfig(d.configText("console=ttyS1 quiet", "vmlinuz"))
	if st := d.reload(); !strings.Contains(st, "STATUS=reloaded") {
		t.Errorf("after a good reload: %q", st)
	}
	if script := d.get("/boot/" + testMAC + "/script.ipxe"); !strings.Contains(script, "console=ttyS1 quiet\n") {
		t.Fatalf("script after reload:\n%s", script)
	}

	d.writeConfig(d.configText("console=ttyS2 ; shell", "vmlinuz"))
	st := d.reload()
	if !strings.Contains(st, "STATUS=reload failed (rackboot.toml:19:11: profile.cmdline") {
		t.Errorf("after a bad reload: %q", st)
	}
	if script := d.get("/boot/" + testMAC + "/script.ipxe"); !strings.Contains(script, "console=ttyS1 quiet\n") {
		t.Fatalf("script after a bad reload:\n%s", script)
	}
	if !strings.Contains(d.stderr.String(), "reload failed; the running configuration stays") {
		t.Errorf("the failed reload was not logged:\n%s", d.stderr.String())
	}
	metrics := d.get("/metrics")
	for _, want := range []string{"rackboot_config_reloads_total 1\n", "rackboot_config_reload_failures_total 1\n",
		"rackboot_config_last_reload_failed 1\n", "# TYPE rackboot_tftp_transfers_started_total counter\n",
		"# TYPE rackboot_tftp_size_probes_total counter\n"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, metrics)
		}
	}
	d.stop()
}

// TestReloadNeedsRestart: a reload that changes a listen address is refused
// as a whole.
func TestReloadNeedsRestart(t *testing.T) {
	d := startDaemon(t)
	d.waitNote("READY=1")
	text := strings.Replace(d.configText("console=ttyS1", "vmlinuz"), d.tftpAddr, "127.0.0.1:1", 1)
	d.writeConfig(text)
	if st := d.reload(); !strings.Contains(st, "reload failed (tftp.listen changed: restart rackbootd to apply)") {
		t.Errorf("status: %q", st)
	}
	if script := d.get("/boot/" + testMAC + "/script.ipxe"); !strings.Contains(script, "console=ttyS0\n") {
		t.Errorf("the refused reload changed the script:\n%s", script)
	}
	d.stop()
}

func TestWatchdog(t *testing.T) {
	d := startDaemon(t, "WATCHDOG_USEC=200000")
	d.waitNote("READY=1")
	for range 3 {
		d.waitNote("WATCHDOG=1")
	}
	d.stop()
}

// TestStartFailure: a port in use fails the start before READY=1.
func TestStartFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	for _, f := range []string{"vmlinuz", "initrd.img"} {
		writeFile(t, dir, f, "x")
	}
	writeFile(t, dir, "r.toml", fmt.Sprintf("[server]\nadvertise = \"127.0.0.1\"\nhttp_listen = %q\n[tftp]\nenabled = false\n"+
		"[[profile]]\nname = \"p\"\nkernel = \"vmlinuz\"\ninitrd = \"initrd.img\"\n", ln.Addr().String()))
	_, stderr, code := runBinary(t, dir, "--config", "r.toml")
	if code != 1 || !strings.Contains(stderr, "rackbootd: http: listen tcp "+ln.Addr().String()) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestStartWithBadConfig: the daemon exits 1 with every error, and tells
// systemd why in STATUS=.
func TestStartWithBadConfig(t *testing.T) {
	d := newTestDaemon(t, freePort(t, "tcp"), freePort(t, "udp"))
	d.writeConfig(strings.Replace(d.configText("console=ttyS0", "vmlinuz"), `advertise = "127.0.0.1"`, `advertise = "127.0.0.1"`+"\nbogus = 1", 1))
	d.start(nil)
	d.waitNote("STATUS=configuration invalid: rackboot.toml:3:1: unknown key server.bogus")
	if err := <-d.exited; err == nil || !strings.Contains(d.stderr.String(), "rackboot.toml:3:1: unknown key server.bogus\n") {
		t.Errorf("exit %v, stderr:\n%s", err, d.stderr.String())
	}
	d.exited <- nil
}
