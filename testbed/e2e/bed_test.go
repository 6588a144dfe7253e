package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/netns"
	"github.com/rackboot/rackboot/testbed/qemu"
)

// Addresses of the test segment (inside each test's own namespace).
const (
	serverIP   = "10.99.0.1"
	serverCIDR = "10.99.0.1/24"
	bridge     = "br0"
	tap        = "tap0"
	ipxeDir    = "/usr/lib/ipxe"
)

// bootLimit bounds one boot, from power-on to RACKBOOT-DONE. It is
// generous: TCG on a busy 2-core machine is slow, and it only ends a hung
// test.
func bootLimit(fw qemu.Firmware) time.Duration {
	if fw == qemu.UEFI {
		return 8 * time.Minute
	}
	return 4 * time.Minute
}

// firmwareRE matches the first words the firmware prints.
var firmwareRE = regexp.MustCompile(`SeaBIOS|BdsDxe|PXE`)

var doneRE = regexp.MustCompile(regexp.QuoteMeta(image.MarkerDone))

// requireE2E skips the test unless RACKBOOT_E2E=1, then checks that
// everything the testbed needs is here, failing the test if not.
func requireE2E(t *testing.T, extra ...string) {
	t.Helper()
	if os.Getenv("RACKBOOT_E2E") != "1" {
		t.Skip("end-to-end boot test: set RACKBOOT_E2E=1 (make e2e-boot)")
	}
	if err := netns.Available(); err != nil {
		t.Fatalf("RACKBOOT_E2E=1 but: %v", err)
	}
	bins := append([]string{qemu.DefaultBinary, "apt-cache", "apt-get", "dpkg-deb"}, extra...)
	for _, b := range bins {
		if _, err := exec.LookPath(b); err != nil {
			t.Fatalf("RACKBOOT_E2E=1 but %s is missing: %v (make deps)", b, err)
		}
	}
	files := []string{image.DefaultBusybox, qemu.DefaultOVMFCode, qemu.DefaultOVMFVars,
		filepath.Join(ipxeDir, "undionly.kpxe"), filepath.Join(ipxeDir, "ipxe.efi"), "/usr/lib/ipxe/qemu/efi-virtio.rom"}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("RACKBOOT_E2E=1 but %v (make deps)", err)
		}
	}
}

// testImage builds (or takes from the cache) the test boot image.
func testImage(t *testing.T, ctx context.Context) image.Artifacts {
	t.Helper()
	cache, err := image.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	art, err := image.Build(ctx, cache)
	if err != nil {
		t.Fatalf("building the test image: %v", err)
	}
	return art
}

// newSegment makes a namespace with br0 (10.99.0.1/24) and tap0 on it.
func newSegment(t *testing.T, ctx context.Context) *netns.NS {
	t.Helper()
	ns, err := netns.New(ctx, nsPrefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ns.Close(); err != nil {
			t.Logf("deleting namespace: %v", err)
		}
	})
	if err := ns.AddBridge(ctx, bridge, serverCIDR); err != nil {
		t.Fatal(err)
	}
	if err := ns.AddTap(ctx, tap, bridge); err != nil {
		t.Fatal(err)
	}
	return ns
}

// proc is a server process run for one test; its output is logged when the
// test fails.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
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

// startProc runs name inside ns until the test ends.
func startProc(t *testing.T, ctx context.Context, ns *netns.NS, name string, args ...string) *proc {
	t.Helper()
	p := &proc{name: filepath.Base(name), cmd: ns.Command(ctx, name, args...), out: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("--- %s output ---\n%s", p.name, qemu.Tail(p.out.String(), 200))
		}
	})
	return p
}

func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// exited reports an error if the process is no longer running.
func (p *proc) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited: %v\n%s", p.name, p.cmd.ProcessState, qemu.Tail(p.out.String(), 50))
	default:
		return nil
	}
}

// serveHTTP serves dir on addr inside ns until the test ends.
func serveHTTP(t *testing.T, ns *netns.NS, addr, dir string) {
	t.Helper()
	var ln net.Listener
	err := ns.Do(func() (err error) {
		ln, err = net.Listen("tcp4", addr)
		return err
	})
	if err != nil {
		t.Fatalf("listening on %s in the namespace: %v", addr, err)
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir)), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
}

// boot starts a VM on tap0 and waits until its image reports RACKBOOT-DONE;
// it returns the console. On failure it logs the console's tail.
func boot(t *testing.T, ctx context.Context, ns *netns.NS, fw qemu.Firmware, mac string) string {
	t.Helper()
	vm, console := bootUntil(t, ctx, ns, fw, mac, doneRE)
	if errs := image.Errors(console); len(errs) > 0 {
		t.Errorf("the image reported errors: %q", errs)
	}
	// The image powers off after RACKBOOT-DONE; a VM that does not is
	// stopped by the cleanup of bootUntil.
	ectx, ecancel := context.WithTimeout(ctx, 30*time.Second)
	defer ecancel()
	if err := vm.Wait(ectx); err != nil {
		t.Logf("after %s: %v", image.MarkerDone, err)
	}
	return console
}

// bootUntil starts a VM on tap0 and waits until its console matches until;
// it returns the VM and the console at that point. The VM is stopped when
// the test ends; if the test failed, the console's tail is logged.
func bootUntil(t *testing.T, ctx context.Context, ns *netns.NS, fw qemu.Firmware, mac string, until *regexp.Regexp) (*qemu.VM, string) {
	t.Helper()
	vm, err := qemu.Start(ctx, ns, qemu.Config{Firmware: fw, MAC: mac, Tap: tap, Dir: t.TempDir(), NoReboot: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		vm.Stop()
		if t.Failed() {
			t.Logf("--- %s VM %s console (last 80 lines) ---\n%s\n--- qemu stderr ---\n%s", fw, mac, vm.ConsoleTail(80), vm.Stderr())
		}
	})
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, bootLimit(fw))
	defer cancel()
	if _, err := vm.WaitFor(wctx, firmwareRE); err != nil {
		t.Fatalf("%s VM %s: no firmware output: %v", fw, mac, err)
	}
	if st, err := vm.Status(wctx); err != nil || st != "running" {
		t.Errorf("QMP query-status while booting = %q, %v; want running", st, err)
	}
	if _, err := vm.WaitFor(wctx, until); err != nil {
		t.Fatalf("%s VM %s never printed %q: %v", fw, mac, until, err)
	}
	t.Logf("%s VM %s: power-on to %q in %s", fw, mac, until, time.Since(start).Round(100*time.Millisecond))
	return vm, vm.Console()
}
