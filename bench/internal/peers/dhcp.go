package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rackboot/rackboot/bench/internal/proc"
	"github.com/rackboot/rackboot/bench/internal/topo"
	"github.com/rackboot/rackboot/testbed/netns"
)

// Kea starts kea-dhcp4 with a memfile lease database that persists every
// lease to a CSV file in dir (persist=true, lease file cleanup disabled).
func Kea(ctx context.Context, ns *netns.NS, dir string) (*proc.Proc, error) {
	cfg := map[string]any{"Dhcp4": map[string]any{
		"interfaces-config": map[string]any{"interfaces": []string{topo.ServerIf}},
		"lease-database": map[string]any{
			"type": "memfile", "persist": true, "lfc-interval": 0,
			"name": filepath.Join(dir, "kea-leases4.csv"),
		},
		"valid-lifetime": 3600,
		"subnet4": []any{map[string]any{
			"subnet": topo.Subnet,
			"pools":  []any{map[string]any{"pool": topo.RangeStart + " - " + topo.RangeEnd}},
			"option-data": []any{
				map[string]any{"name": "routers", "data": topo.ServerIP},
				map[string]any{"name": "domain-name-servers", "data": topo.ServerIP},
			},
		}},
		"loggers": []any{map[string]any{
			"name": "kea-dhcp4", "severity": "WARN",
			"output_options": []any{map[string]any{"output": "stdout"}},
		}},
	}}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("peers: kea config: %w", err)
	}
	path := filepath.Join(dir, "kea-dhcp4.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return nil, fmt.Errorf("peers: kea config: %w", err)
	}
	env := []string{"KEA_PIDFILE_DIR=" + dir, "KEA_LOCKFILE_DIR=" + dir}
	return proc.Start(ctx, ns, "kea-dhcp4", filepath.Join(dir, "kea.log"), env,
		"kea-dhcp4", "-c", path)
}

// Dnsmasq starts dnsmasq as a DHCP-only server (DNS off) with the same pool,
// its lease file in dir. Its ICMP probe before each offer is switched off
// (--no-ping): neither Kea nor rackbootd probes, and a probe would only
// measure a one-second timeout.
func Dnsmasq(ctx context.Context, ns *netns.NS, dir string) (*proc.Proc, error) {
	return proc.Start(ctx, ns, "dnsmasq", filepath.Join(dir, "dnsmasq.log"), nil,
		"dnsmasq", "--keep-in-foreground", "--conf-file=/dev/null", "--port=0",
		"--user=root", "--group=root",
		"--pid-file="+filepath.Join(dir, "dnsmasq.pid"),
		"--interface="+topo.ServerIf, "--bind-interfaces",
		fmt.Sprintf("--dhcp-range=%s,%s,%s,1h", topo.RangeStart, topo.RangeEnd, topo.Netmask),
		"--dhcp-option=option:router,"+topo.ServerIP,
		"--dhcp-leasefile="+filepath.Join(dir, "dnsmasq.leases"),
		"--dhcp-lease-max=100000", "--no-ping", "--dhcp-authoritative",
		"--log-facility=-", "--quiet-dhcp")
}
