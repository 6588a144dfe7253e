package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine/api"
	"github.com/rackboot/rackboot/engine/validation"
	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/netns"
)

// reservation is one DHCP reservation of a test config: the address and
// hostname rackbootd gives a VM's MAC.
type reservation struct{ mac, ip, name string }

// discoveryConfigHead is the part of rackbootd's config that the discovery
// and BMC tests share: the appliance at 10.99.0.1 on br0 with full DHCP and
// a reservation per VM, TFTP for the iPXE binaries and the discovery image
// as the profile "discovery". The caller appends its [engine],
// [[image_set]] and [api] sections.
func discoveryConfigHead(dir string, art image.Artifacts, res []reservation) string {
	var rs strings.Builder
	for _, r := range res {
		fmt.Fprintf(&rs, "\n[[dhcp.reservation]]\nmac = %q\nip = %q\nhostname = %q\n", r.mac, r.ip, r.name)
	}
	return fmt.Sprintf(`[server]
data_dir = %q
advertise = "10.99.0.1"
http_listen = "10.99.0.1:8080"
log_level = "debug"

[dhcp]
mode = "full"
interfaces = ["br0"]
subnet = "10.99.0.0/24"
range = ["10.99.0.100", "10.99.0.200"]
router = "10.99.0.1"
dns = ["10.99.0.1"]
lease_time = "1h"
%s
[tftp]
listen = ":69"
root = "/usr/lib/ipxe"

[[profile]]
name = "discovery"
kernel = %q
initrd = %q
cmdline = "console=ttyS0"
`, filepath.Join(dir, "state"), rs.String(), art.Kernel, art.Initrd)
}

// discoveryConfig is the rackbootd config of the discovery test:
// full DHCP with a reservation (address and hostname) per discoHost, the
// discovery image as the default profile, "testbed" as the default
// infra-env, and an image set booting it with the testbed-small-vms
// thresholds ([engine] keeps upstream's minimums).
func discoveryConfig(art image.Artifacts, dir string) string {
	var res []reservation
	for _, h := range discoHosts {
		res = append(res, reservation{mac: h.mac, ip: h.ip, name: h.name})
	}
	return discoveryConfigHead(dir, art, res) + fmt.Sprintf(`
[engine]
default_infra_env = %q
default_profile = "discovery"
monitor_interval = "5s"

# The VMs' infra-env (x86_64) boots this image set, so its hosts are
# validated against its thresholds.
[[image_set]]
name = "testbed"
cpu_arch = "x86_64"
profile = "discovery"
%s
# The test's API client is inside the namespace, not on loopback.
[api]
admin_remote = true
`, discoveryInfraEnv, thresholdsTOML(testbedThresholds(), false))
}

// thresholdsTOML is the [image_set.thresholds] table of th; with
// singleNode it adds single_node with the master's requirements (a single
// node is a master).
func thresholdsTOML(th validation.Thresholds, singleNode bool) string {
	row := func(name string, r validation.Requirements) string {
		return fmt.Sprintf("%s = { cpu_cores = %d, memory_mib = %d, disk_gb = %d }\n", name, r.CPUCores, r.MemoryMiB, r.DiskGB)
	}
	s := fmt.Sprintf("[image_set.thresholds]\nprofile = %q\n", th.Profile) + row("master", th.Master) + row("worker", th.Worker)
	if singleNode {
		s += row("single_node", th.Master)
	}
	return s
}

// startWithConfig writes toml as dir/rackboot.toml, starts rackbootd with
// it in ns (startRackbootd: check-config, then wait for /healthz) and
// returns the config's path, the daemon and its admin API client. The
// config's data_dir must be dir/state (discoveryConfigHead's).
func startWithConfig(t *testing.T, ctx context.Context, ns *netns.NS, dir, toml string) (string, *proc, *apiClient) {
	t.Helper()
	path := filepath.Join(dir, "rackboot.toml")
	if err := os.WriteFile(path, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startRackbootd(t, ctx, ns, path)
	return path, p, rackbootClient(t, ns, dir)
}

// rackbootClient is the admin API client of a rackbootd whose data_dir is
// dir/state (the token is the admin-token file it created).
func rackbootClient(t *testing.T, ns *netns.NS, dir string) *apiClient {
	t.Helper()
	tok, err := os.ReadFile(filepath.Join(dir, "state", "admin-token"))
	if err != nil {
		t.Fatalf("rackbootd's admin token: %v", err)
	}
	return &apiClient{t: t, http: nsHTTPClient(ns), base: "http://" + serverIP + ":8080" + api.BasePath, token: strings.TrimSpace(string(tok))}
}
