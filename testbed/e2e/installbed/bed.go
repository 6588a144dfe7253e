package installbed

import (
	"context"
	"errors"
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
	"time"

	"github.com/rackboot/rackboot/testbed/coreosimage"
	"github.com/rackboot/rackboot/testbed/netns"
	"github.com/rackboot/rackboot/testbed/qemu"
)

// Errors of the bed.
var (
	ErrBed     = errors.New("installbed")
	ErrTimeout = errors.New("installbed: timed out")
)

// Addresses of the bed's segment (inside its own namespace).
const (
	ServerIP = "10.99.0.1"
	Bridge   = "br0"
	APIURL   = "http://" + ServerIP + ":8080"
	// InfraEnvName is the infra-env rackbootd boots every MAC into.
	InfraEnvName = "testbed"
	// ImageSetName is the image set of the config.
	ImageSetName = "testbed"
)

// Role Ignition generators of the config.
const (
	GeneratorUserConfigs      = "user-configs"
	GeneratorOpenShiftInstall = "openshift-install"
)

// Node is one VM of the bed: its name (the hostname its DHCP reservation
// gives), NIC, address and tap, and its hardware.
type Node struct {
	Name     string
	MAC      string
	IP       string
	Tap      string
	CPUs     int
	MemoryMB int
	DiskGiB  int64
}

// Nodes returns n nodes named prefix-0, prefix-1, … with MACs, addresses
// and taps numbered from first (so nodes of several calls never collide):
// 2 CPUs, 1536 MiB and a 20 GiB sparse disk, the testbed thresholds' minimum
// for a control-plane node.
func Nodes(prefix string, first, n int) []Node {
	out := make([]Node, n)
	for i := range out {
		k := first + i
		out[i] = Node{Name: fmt.Sprintf("%s-%d", prefix, i), MAC: fmt.Sprintf("52:54:00:00:e0:%02x", k+1),
			IP: fmt.Sprintf("10.99.0.%d", 31+k), Tap: fmt.Sprintf("tap%d", k), CPUs: 2, MemoryMB: 1536, DiskGiB: 20}
	}
	return out
}

// Options are what Start needs. Rackbootd, Rackbootctl, Mirror, AgentDir
// and Dir are required.
type Options struct {
	Rackbootd, Rackbootctl string
	// Mirror is the CoreOS-shaped stream the image set takes: hosts boot
	// its live images and install its metal raw.xz.
	Mirror coreosimage.Mirror
	// AgentDir is [server] agent_dir (coreosimage.AgentDir).
	AgentDir string
	// Generator is GeneratorUserConfigs (the default: roles/*.ign) or
	// GeneratorOpenShiftInstall (the stand-in, which writes credentials).
	Generator string
	// Nodes get a tap and a DHCP reservation each, including nodes booted
	// later (day 2).
	Nodes []Node
	// Dir holds the config, rackbootd's state and the VMs' files.
	Dir string
	// Log gets rackbootd's output (nil: discarded).
	Log io.Writer
}

// Bed is a running installation testbed.
type Bed struct {
	NS    *netns.NS
	Dir   string
	Token string // the admin token
	opts  Options
	proc  *exec.Cmd
	done  chan struct{}
	out   *syncBuffer

	mu  sync.Mutex
	vms []*VM
}

// Start builds the namespace (bridge, a tap per node), writes the config
// and runs rackbootd until it answers /healthz. Close undoes it all.
func Start(ctx context.Context, o Options) (*Bed, error) {
	if o.Rackbootd == "" || o.Rackbootctl == "" || o.Mirror.Stream == "" || o.AgentDir == "" || o.Dir == "" {
		return nil, fmt.Errorf("%w: Rackbootd, Rackbootctl, Mirror, AgentDir and Dir are required", ErrBed)
	}
	if o.Generator == "" {
		o.Generator = GeneratorUserConfigs
	}
	ns, err := netns.New(ctx, "rbinst")
	if err != nil {
		return nil, err
	}
	b := &Bed{NS: ns, Dir: o.Dir, opts: o, out: &syncBuffer{}}
	if err := b.start(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

func (b *Bed) start(ctx context.Context) error {
	if err := b.NS.AddBridge(ctx, Bridge, ServerIP+"/24"); err != nil {
		return err
	}
	for _, n := range b.opts.Nodes {
		if err := b.NS.AddTap(ctx, n.Tap, Bridge); err != nil {
			return err
		}
	}
	conf, err := b.writeConfig()
	if err != nil {
		return err
	}
	if out, err := exec.CommandContext(ctx, b.opts.Rackbootd, "check-config", conf).CombinedOutput(); err != nil {
		return fmt.Errorf("%w: rackbootd check-config: %v\n%s", ErrBed, err, out)
	}
	return b.startDaemon(ctx, conf)
}

// startDaemon runs rackbootd in the namespace and waits for /healthz.
func (b *Bed) startDaemon(ctx context.Context, conf string) error {
	b.proc = b.NS.Command(context.WithoutCancel(ctx), b.opts.Rackbootd, "--config", conf)
	b.proc.Stdout, b.proc.Stderr = b.out, b.out
	if b.opts.Log != nil {
		b.proc.Stdout, b.proc.Stderr = teeWriter{b.out, b.opts.Log}, teeWriter{b.out, b.opts.Log}
	}
	b.proc.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := b.proc.Start(); err != nil {
		return fmt.Errorf("%w: starting rackbootd: %w", ErrBed, err)
	}
	b.done = make(chan struct{})
	go func() { b.proc.Wait(); close(b.done) }()
	hc := b.HTTPClient()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := hc.Get(APIURL + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-b.done:
			return fmt.Errorf("%w: rackbootd exited: %v\n%s", ErrBed, b.proc.ProcessState, qemu.Tail(b.out.String(), 40))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: rackbootd did not answer /healthz within 30 s: %v", ErrTimeout, err)
		}
	}
	tok, err := os.ReadFile(filepath.Join(b.Dir, "state", "admin-token"))
	if err != nil {
		return fmt.Errorf("%w: rackbootd's admin token: %w", ErrBed, err)
	}
	b.Token = strings.TrimSpace(string(tok))
	return nil
}

// VMs are the VMs booted so far.
func (b *Bed) VMs() []*VM {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]*VM(nil), b.vms...)
}

// DaemonLog is what rackbootd wrote so far.
func (b *Bed) DaemonLog() string { return b.out.String() }

// HTTPClient is an HTTP client whose connections are made inside the
// namespace.
func (b *Bed) HTTPClient() *http.Client {
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		var c net.Conn
		err := b.NS.Do(func() (err error) {
			var d net.Dialer
			c, err = d.DialContext(ctx, network, addr)
			return err
		})
		return c, err
	}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true}}
}

// Close stops the VMs and rackbootd and deletes the namespace.
func (b *Bed) Close() error {
	b.mu.Lock()
	vms := b.vms
	b.vms = nil
	b.mu.Unlock()
	for _, vm := range vms {
		vm.Stop()
	}
	if b.proc != nil && b.proc.Process != nil {
		b.proc.Process.Signal(syscall.SIGTERM)
		select {
		case <-b.done:
		case <-time.After(10 * time.Second):
			b.proc.Process.Kill()
			<-b.done
		}
	}
	return b.NS.Close()
}

// syncBuffer is a strings.Builder safe for concurrent writers and readers.
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

// teeWriter writes to both.
type teeWriter struct{ a, b io.Writer }

func (t teeWriter) Write(p []byte) (int, error) {
	t.b.Write(p)
	return t.a.Write(p)
}
