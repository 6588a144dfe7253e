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
	"github.com/rackboot/rackboot/testbed/coreosimage"
	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/netns"
)

// reservation is one DHCP reservation of a test config: the address and
// hostname rackbootd gives a VM's MAC.
type reservation struct{ mac, ip, name string }

// discoveryConfigHead is the part of rackbootd's config that the discovery
// and BMC tests share: the appliance at 10.99.0.1 on br0 with full DHCP and
// a reservation per VM, TFTP for the iPXE binaries and the agent_dir make
// build fills (a CoreOS image set serves its rackboot-agent from there).
// The caller appends its [engine], [[image_set]] and [api] sections.
func discoveryConfigHead(t *testing.T, dir string, res []reservation) string {
	t.Helper()
	root, err := image.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var rs strings.Builder
	for _, r := range res {
		fmt.Fprintf(&rs, "\n[[dhcp.reservation]]\nmac = %q\nip = %q\nhostname = %q\n", r.mac, r.ip, r.name)
	}
	return fmt.Sprintf(`[server]
data_dir = %q
advertise = "10.99.0.1"
http_listen = "10.99.0.1:8080"
log_level = "debug"
agent_dir = %q

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
`, filepath.Join(dir, "state"), coreosimage.AgentDir(root), rs.String())
}

// discoveryConfig is the rackbootd config of the discovery test:
// full DHCP with a reservation (address and hostname) per discoHost,
// "testbed" as the default infra-env, and the CoreOS-shaped image set
// (coreos_stream, as a user's RHCOS mirror) with the testbed-small-vms
// thresholds ([engine] keeps upstream's minimums).
func discoveryConfig(t *testing.T, m coreosimage.Mirror, dir string) string {
	var res []reservation
	for _, h := range discoHosts {
		res = append(res, reservation{mac: h.mac, ip: h.ip, name: h.name})
	}
	set := coreosimage.ImageSet{Name: discoveryImageSet, Mirror: m, Extra: thresholdsTOML(testbedThresholds(), false)}
	return discoveryConfigHead(t, dir, res) + fmt.Sprintf(`
[engine]
default_infra_env = %q
monitor_interval = "5s"

# The VMs' infra-env (x86_64) boots this image set, so its hosts are
# validated against its thresholds.
%s
# The test's API client is inside the namespace, not on loopback.
[api]
admin_remote = true
`, discoveryInfraEnv, set.TOML())
}

// discoveryImageSet is the name of the discovery test's image set (its
// rootfs is served at /images/<name>/rootfs.img).
const discoveryImageSet = "testbed"

// profileTOML is the [[profile]] "discovery" booting art, for the tests
// still on the busybox discovery image.
func profileTOML(art image.Artifacts) string {
	return fmt.Sprintf(`
[[profile]]
name = "discovery"
kernel = %q
initrd = %q
cmdline = "console=ttyS0"
`, art.Kernel, art.Initrd)
}

// thresholdsTOML is the [image_set.thresholds] table of th; with
// singleNode it adds single_node with the master's requirements (a single
// node is a master).
func thresholdsTOML(th validation.Thresholds, singleNode bool) string {
	row := func(name string, r validation.Requirements) string {
		return fmt.Sprintf("%s = { cpu_cores = %d, memory_mib = %d, disk_gb = %d }\n", name, r.CPUCores, r.MemoryMiB, r.DiskGB)
	}
	s := fmt.Sprintf("[image_set.thresholds]\nprofile = %q\ninstallation_disk_speed_threshold_ms = %d\n", th.Profile, th.DiskSpeedThresholdMs) +
		row("master", th.Master) + row("worker", th.Worker)
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
