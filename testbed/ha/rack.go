package ha

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/netns"
)

// The rack's fixed addresses.
const (
	ServiceAddr = "10.99.0.1"
	Prefix      = 24
	Subnet      = "10.99.0.0/24"
	ClientAddr  = "10.99.0.250"
	RangeStart  = "10.99.0.100"
	RangeEnd    = "10.99.0.200"
	HTTPPort    = 8080
	Bridge      = "br0"
	// RaftPort is each appliance's raft port on its own address.
	RaftPort = 7400
)

// ErrRack is wrapped by the rack's own errors.
var ErrRack = errors.New("ha testbed")

// Options describe a rack. Dir is required.
type Options struct {
	// Nodes is how many appliances (default 3).
	Nodes int
	// Binary is rackbootd (default bin/rackbootd of the repository).
	Binary string
	// Dir holds each node's data directory, config and log.
	Dir string
	// Config, when set, is called for each node's configuration file
	// instead of the default one; it gets the rack, for the other nodes.
	Config func(r *Rack, n *Node) string
	// Lone leaves [cluster] out: each node a one-voter cluster of its own,
	// without the service address. By default every node has [cluster]
	// (certificates from rackbootctl cluster init, the first Nodes nodes
	// bootstrapping together, the service address on eth0).
	Lone bool
	// Extra is appended to every node's default configuration (profiles,
	// image sets, reservations).
	Extra string
	// AgentDir is [server] agent_dir, where a CoreOS image set's
	// rackboot-agent is (coreosimage.AgentDir); "" leaves it out.
	AgentDir string
	// LeaseTime is the DHCP lease time (default 1h).
	LeaseTime time.Duration
	// DHCP, when set, replaces the default [dhcp] table (full mode on
	// eth0, Subnet, RangeStart–RangeEnd).
	DHCP string
	// LogLevel is the nodes' log level (default debug: the tests read
	// DHCP replies from the logs).
	LogLevel string
	// Logf receives what the rack does (t.Logf); nil discards.
	Logf func(format string, args ...any)
}

// Rack is the running testbed. Close it when done.
type Rack struct {
	opts   Options
	Bed    *netns.NS // holds the bridge; VM taps go here
	Client *netns.NS // the API client, at ClientAddr
	Nodes  []*Node
	extra  []*netns.NS
	token  string // the admin token every node gets
}

// New builds the namespaces and writes every node's configuration; it
// starts nothing.
func New(ctx context.Context, opts Options) (_ *Rack, err error) {
	if err := netns.Available(); err != nil {
		return nil, err
	}
	if opts.Dir == "" {
		return nil, fmt.Errorf("%w: no directory", ErrRack)
	}
	if opts.Nodes == 0 {
		opts.Nodes = 3
	}
	if opts.LeaseTime == 0 {
		opts.LeaseTime = time.Hour
	}
	if opts.LogLevel == "" {
		opts.LogLevel = "debug"
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Binary == "" {
		if opts.Binary, err = defaultBinary(); err != nil {
			return nil, err
		}
	}
	r := &Rack{opts: opts}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	if r.Bed, err = netns.New(ctx, "habed"); err != nil {
		return nil, err
	}
	if err := r.Bed.AddBridge(ctx, Bridge, ""); err != nil {
		return nil, err
	}
	if r.Client, err = r.AddClient(ctx, "hacli", ClientAddr+"/24", ""); err != nil {
		return nil, err
	}
	for range opts.Nodes {
		if _, err := r.AddNode(ctx); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func defaultBinary() (string, error) {
	root, err := image.RepoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(root, "bin", "rackbootd")
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("%w: %w (run make build)", ErrRack, err)
	}
	return bin, nil
}

// AddClient makes a namespace with eth0 on the bridge; cidr and mac may be
// "" (a DHCP client has no address yet). Close closes it.
func (r *Rack) AddClient(ctx context.Context, prefix, cidr, mac string) (*netns.NS, error) {
	ns, err := netns.New(ctx, prefix)
	if err != nil {
		return nil, err
	}
	r.extra = append(r.extra, ns)
	if err := r.Bed.AddVethToBridge(ctx, Bridge, ns, "eth0", cidr, mac); err != nil {
		return nil, err
	}
	return ns, nil
}

// AddNode makes the namespace, directory and configuration of one more
// appliance (index len(Nodes)); it does not start it.
func (r *Rack) AddNode(ctx context.Context) (*Node, error) {
	i := len(r.Nodes)
	n := &Node{
		Index: i,
		Name:  fmt.Sprintf("node%d", i),
		Addr:  netip.AddrFrom4([4]byte{10, 99, 0, byte(11 + i)}),
		MAC:   fmt.Sprintf("02:00:00:99:00:%02x", 0x11+i),
		Dir:   filepath.Join(r.opts.Dir, fmt.Sprintf("node%d", i)),
		bedIf: fmt.Sprintf("ha%d", i),
		rack:  r,
	}
	if err := os.MkdirAll(n.DataDir(), 0o750); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRack, err)
	}
	var err error
	if n.NS, err = netns.New(ctx, "ha"+n.Name); err != nil {
		return nil, err
	}
	r.Nodes = append(r.Nodes, n)
	if err := r.plug(ctx, n); err != nil {
		return nil, err
	}
	if !r.opts.Lone {
		if err := r.issue(ctx, n); err != nil {
			return nil, err
		}
	}
	if err := r.seedToken(n); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRack, err)
	}
	return n, r.WriteConfig(n)
}

// plug connects n's eth0 to the bridge through a veth whose bridge end has
// a known name, so that Cut can pull it.
func (r *Rack) plug(ctx context.Context, n *Node) error {
	steps := [][]string{
		{"link", "add", n.bedIf, "type", "veth", "peer", "name", "eth0", "netns", n.NS.Name},
		{"link", "set", n.bedIf, "master", Bridge},
		{"link", "set", n.bedIf, "up"},
	}
	for _, s := range steps {
		if err := r.Bed.IP(ctx, s...); err != nil {
			return err
		}
	}
	for _, s := range [][]string{
		{"link", "set", "eth0", "address", n.MAC},
		{"addr", "add", fmt.Sprintf("%s/%d", n.Addr, Prefix), "dev", "eth0"},
		{"link", "set", "eth0", "up"},
	} {
		if err := n.NS.IP(ctx, s...); err != nil {
			return err
		}
	}
	return nil
}

// WriteConfig (re)writes n's configuration file.
func (r *Rack) WriteConfig(n *Node) error {
	text := r.defaultConfig(n)
	if r.opts.Config != nil {
		text = r.opts.Config(r, n)
	}
	if err := os.WriteFile(n.ConfigPath(), []byte(text), 0o644); err != nil {
		return fmt.Errorf("%w: %w", ErrRack, err)
	}
	return nil
}

// defaultConfig: full DHCP on eth0 advertising the service address, HTTP on
// every address, TFTP of the iPXE binaries, the admin API open to the
// client namespace, the service address on eth0, and the Cluster table.
func (r *Rack) defaultConfig(n *Node) string {
	cluster := ""
	if !r.opts.Lone {
		cluster = r.clusterTable(n)
	}
	dhcp := r.opts.DHCP
	if dhcp == "" {
		dhcp = fmt.Sprintf("[dhcp]\nmode = \"full\"\ninterfaces = [\"eth0\"]\nsubnet = %q\nrange = [%q, %q]\nlease_time = %q\n",
			Subnet, RangeStart, RangeEnd, r.opts.LeaseTime.String())
	}
	agentDir := ""
	if r.opts.AgentDir != "" {
		agentDir = fmt.Sprintf("agent_dir = %q\n", r.opts.AgentDir)
	}
	return fmt.Sprintf(`[server]
data_dir = %q
advertise = %q
http_listen = "0.0.0.0:%d"
log_level = %q
%s
%s
[tftp]
listen = ":69"
root = "/usr/lib/ipxe"

[api]
admin_remote = true

%s
%s
`, n.DataDir(), ServiceAddr, HTTPPort, r.opts.LogLevel, agentDir, dhcp, cluster, r.opts.Extra)
}

// Start starts every node that is not running, then waits until each
// answers /healthz.
func (r *Rack) Start(ctx context.Context) error {
	for _, n := range r.Nodes {
		if !n.Running() {
			if err := n.Start(ctx); err != nil {
				return err
			}
		}
	}
	for _, n := range r.Nodes {
		if err := n.WaitHealthy(ctx); err != nil {
			return err
		}
	}
	return nil
}

// HTTP is an HTTP client whose connections start in the client namespace.
func (r *Rack) HTTP(timeout time.Duration) *http.Client {
	return NSHTTPClient(r.Client, timeout)
}

// NSHTTPClient is an HTTP client whose connections are made inside ns.
func NSHTTPClient(ns *netns.NS, timeout time.Duration) *http.Client {
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		var c net.Conn
		err := ns.Do(func() (err error) {
			var d net.Dialer
			c, err = d.DialContext(ctx, network, addr)
			return err
		})
		return c, err
	}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true}}
}

// ServiceURL is the base URL at the service address.
func ServiceURL() string { return fmt.Sprintf("http://%s:%d", ServiceAddr, HTTPPort) }

// VIPHolders are the running nodes whose eth0 holds the service address.
// A node killed while it held the address keeps it in its namespace (no
// process is left to remove it; the next start does): it is not counted.
func (r *Rack) VIPHolders(ctx context.Context) ([]*Node, error) {
	var out []*Node
	for _, n := range r.Nodes {
		if !n.Running() {
			continue
		}
		ok, err := n.HoldsVIP(ctx)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, n)
		}
	}
	return out, nil
}

// WaitVIP waits until exactly one node holds the service address and it
// is not one of not; it returns that node.
func (r *Rack) WaitVIP(ctx context.Context, not ...*Node) (*Node, error) {
	var last []*Node
	err := poll(ctx, 50*time.Millisecond, func() (bool, error) {
		hs, err := r.VIPHolders(ctx)
		last = hs
		if err != nil || len(hs) != 1 {
			return false, err
		}
		for _, x := range not {
			if hs[0] == x {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: waiting for one holder of the service address (now %s): %w", ErrRack, names(last), err)
	}
	return last[0], nil
}

func names(ns []*Node) string {
	s := "none"
	for i, n := range ns {
		if i == 0 {
			s = n.Name
		} else {
			s += "," + n.Name
		}
	}
	return s
}

// poll calls cond every interval until it returns true or an error, or ctx
// ends.
func poll(ctx context.Context, interval time.Duration, cond func() (bool, error)) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}

// Close kills every node and deletes every namespace.
func (r *Rack) Close() error {
	var errs []error
	for _, n := range r.Nodes {
		if n.Running() {
			errs = append(errs, n.Kill())
		}
	}
	for _, n := range r.Nodes {
		if n.NS != nil {
			errs = append(errs, n.NS.Close())
		}
		if n.tmpfs {
			if out, err := exec.Command("umount", n.DataDir()).CombinedOutput(); err != nil {
				errs = append(errs, fmt.Errorf("%w: umount %s: %w: %s", ErrRack, n.DataDir(), err, out))
			}
		}
	}
	for _, ns := range r.extra {
		errs = append(errs, ns.Close())
	}
	if r.Bed != nil {
		errs = append(errs, r.Bed.Close())
	}
	return errors.Join(errs...)
}
