package peers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rackboot/rackboot/bench/internal/proc"
	"github.com/rackboot/rackboot/bench/internal/topo"
	"github.com/rackboot/rackboot/testbed/netns"
)

// RackbootdHTTPPort is the port rackbootd's HTTP boot server listens on.
const RackbootdHTTPPort = 8080

// Rackbootd describes one rackbootd run.
type Rackbootd struct {
	Bin      string // path to bin/rackbootd
	DHCPMode string // "full" or "off"
	TFTPRoot string
	Kernel   string // profile kernel
	Initrd   string // profile base initrd
	Ignition string // profile Ignition config
}

// Config renders the TOML configuration for a run whose state lives in dir.
func (r Rackbootd) Config(dir string) string {
	return fmt.Sprintf(`# Written by bench/ for one benchmark run.
[server]
data_dir = %q
advertise = %q
http_listen = "%s:%d"
# Like Kea (severity WARN) and dnsmasq (--quiet-dhcp): no line per packet.
log_level = "warn"

[dhcp]
mode = %q
interfaces = [%q]
subnet = %q
range = [%q, %q]
router = %q
dns = [%q]
lease_time = "1h"

[tftp]
listen = "%s:69"
root = %q
# The benchmark's 50 clients share one address; on a PXE segment each has
# its own (8 per address by default).
max_transfers_per_client = 64

[[profile]]
name = "bench"
kernel = %q
initrd = %q
cmdline = "console=ttyS0"
ignition = %q
macs = []
`, filepath.Join(dir, "data"), topo.ServerIP, topo.ServerIP, RackbootdHTTPPort,
		r.DHCPMode, topo.ServerIf, topo.Subnet, topo.RangeStart, topo.RangeEnd,
		topo.ServerIP, topo.ServerIP, topo.ServerIP, r.TFTPRoot,
		r.Kernel, r.Initrd, r.Ignition)
}

// Start writes the configuration into dir and starts rackbootd in ns.
func (r Rackbootd) Start(ctx context.Context, ns *netns.NS, dir string) (*proc.Proc, error) {
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, fmt.Errorf("peers: rackbootd data dir: %w", err)
	}
	path := filepath.Join(dir, "rackboot.toml")
	if err := os.WriteFile(path, []byte(r.Config(dir)), 0o644); err != nil {
		return nil, fmt.Errorf("peers: rackbootd config: %w", err)
	}
	return proc.Start(ctx, ns, "rackbootd", filepath.Join(dir, "rackbootd.log"), nil,
		r.Bin, "--config", path)
}
