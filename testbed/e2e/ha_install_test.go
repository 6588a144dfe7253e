package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/testbed/coreosimage"
	"github.com/rackboot/rackboot/testbed/e2e/installbed"
	"github.com/rackboot/rackboot/testbed/ha"
)

// haInstallExtra is installbed's install settings for a testbed/ha rack:
// the engine's default infra-env and install timeout, and the
// CoreOS-shaped image set (the same stream on every appliance) installing
// its metal raw.xz with the user's role configs.
func haInstallExtra(t *testing.T, m coreosimage.Mirror, dir string) string {
	t.Helper()
	roleDir, err := installbed.WriteRoleConfigs(dir)
	if err != nil {
		t.Fatal(err)
	}
	set := coreosimage.ImageSet{Name: installbed.ImageSetName, Version: "4.16", Mirror: m, Extra: fmt.Sprintf(`generator = "user-configs"
role_ignition_dir = %q
[image_set.thresholds]
profile = %q
installation_disk_speed_threshold_ms = %s
master = { cpu_cores = 2, memory_mib = 1024, disk_gb = 20 }
worker = { cpu_cores = 1, memory_mib = 1024, disk_gb = 20 }
single_node = { cpu_cores = 2, memory_mib = 1024, disk_gb = 20 }
`, roleDir, installbed.ThresholdsProfile, installbed.DiskSpeedThresholdMs)}
	return fmt.Sprintf(`[engine]
default_infra_env = %q
monitor_interval = "2s"
install_timeout = %q
%s`, installbed.InfraEnvName, installbed.InstallTimeout, set.TOML())
}

// haCtl runs rackbootctl against the rack's service address.
func haCtl(t *testing.T, r *ha.Rack, args ...string) string {
	t.Helper()
	out, err := r.Ctl(t.Context(), args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHAKillLeaderDuringInstall: a single-node cluster on a 3-appliance
// rack, driven with rackbootctl through the service address. While the
// OVMF VM's agent writes the OS image to its disk (stage "Writing image to
// disk"), the leader is killed (SIGKILL): another appliance takes the
// service address and the install controller, the agent's progress reports
// and the disk image download go on through the address, and the
// installation completes: the host is installed at stage Done and the
// installed OS booted and reported its first boot.
func TestHAKillLeaderDuringInstall(t *testing.T) {
	requireE2E(t, "gcc", "sgdisk", "mcopy", "objcopy")
	ctx := t.Context()
	m := liveMirror(t, ctx)
	node := installbed.Nodes("hasno", 0, 1)[0]
	dir := t.TempDir()
	dhcp, _ := haRackConfig(m, nil)
	dhcp += fmt.Sprintf("\n[[dhcp.reservation]]\nmac = %q\nip = %q\nhostname = %q\n", node.MAC, node.IP, node.Name)
	r, err := ha.New(ctx, ha.Options{Dir: dir, Logf: t.Logf, DHCP: dhcp, Extra: haInstallExtra(t, m, dir), AgentDir: haAgentDir(t),
		Binary: os.Getenv("RACKBOOTD")})
	if err != nil {
		t.Fatal(err)
	}
	bed := &installbed.Bed{NS: r.Bed, Dir: dir}
	t.Cleanup(func() {
		if t.Failed() {
			for _, n := range r.Nodes {
				t.Logf("--- %s log (last 40 lines)\n%s", n.Name, n.Tail(40))
			}
			for _, vm := range bed.VMs() {
				t.Logf("--- %s console (last 60 lines) ---\n%s", vm.Node.Name, vm.ConsoleTail(60))
			}
		}
		bed.Close()
		r.Close()
	})
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.WaitVIP(ctx); err != nil {
		t.Fatal(err)
	}
	id := haCreateSNO(t, r, dir, "hasno")
	c, err := client.New(client.Config{URL: ha.ServiceURL(), Token: r.Token(), HTTP: r.HTTP(30 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Bed.AddTap(ctx, node.Tap, ha.Bridge); err != nil {
		t.Fatal(err)
	}
	vm, err := bed.Boot(ctx, node)
	if err != nil {
		t.Fatal(err)
	}
	if err := vm.Await(ctx, installbed.AgentStartRE, installbed.BootLimit); err != nil {
		t.Fatal(err)
	}
	haDiscover(t, r, c, id, node.Name)
	out := haCtl(t, r, "install", "hasno")
	t.Logf("rackbootctl install hasno: %s", strings.TrimSpace(out))
	if _, err := installbed.WaitHosts(ctx, c, id, installLimit, func(hs []*client.Host) bool {
		return len(hs) == 1 && hs[0].Progress != nil && hs[0].Progress.CurrentStage == models.HostStageWritingImageToDisk
	}); err != nil {
		t.Fatal(err)
	}
	leader, err := r.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	killed := killLeader(t, ctx, r, leader, "while the disk was being written")
	if _, err := installbed.WaitCluster(ctx, c, id, installLimit, "installed"); err != nil {
		t.Fatalf("%v\n%s", err, haCtl(t, r, "describe", "cluster", id))
	}
	t.Logf("installed %s after the kill", time.Since(killed).Round(time.Second))
	hs, err := installbed.HostsOf(ctx, c, id)
	if err != nil || len(hs) != 1 || hs[0].Status != "installed" || hs[0].Progress == nil || hs[0].Progress.CurrentStage != models.HostStageDone {
		t.Fatalf("hosts %s (%v), want one installed at stage Done", installbed.Summary(hs), err)
	}
	console := vm.Console()
	for _, want := range []string{installbed.MarkerOSBoot, installbed.MarkerFirstBootDone} {
		if !strings.Contains(console, want) {
			t.Errorf("the installed system never printed %q", want)
		}
	}
}

// haCreateSNO creates a single-node cluster installing the bed's image set
// and the infra-env bound to it, with rackbootctl through the service
// address; it returns the cluster's ID.
func haCreateSNO(t *testing.T, r *ha.Rack, dir, name string) string {
	t.Helper()
	ps, key := filepath.Join(dir, "pull-secret.json"), filepath.Join(dir, "id_ed25519.pub")
	if err := os.WriteFile(ps, []byte(installbed.PullSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte(installbed.SSHKey+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := haCtl(t, r, "create", "cluster", "--name", name, "--version", "4.16", "--base-domain", installbed.BaseDomain,
		"--image-set", installbed.ImageSetName, "--machine-network", installbed.MachineNetwork, "--cluster-network", "10.128.0.0/14",
		"--service-network", "172.30.0.0/16", "--pull-secret-file", ps, "--ssh-key-file", key, "--sno")
	id, ok := strings.CutSuffix(strings.TrimSpace(out), " created")
	id, ok2 := strings.CutPrefix(id, "cluster/")
	if !ok || !ok2 {
		t.Fatalf("create cluster printed %q", out)
	}
	haCtl(t, r, "create", "infra-env", "--name", installbed.InfraEnvName, "--cluster", id,
		"--cpu-arch", "x86_64", "--pull-secret-file", ps, "--ssh-key-file", key)
	return id
}

// haDiscover waits until the host registered with its inventory, approves
// it and makes it the master, and waits until the cluster is ready.
func haDiscover(t *testing.T, r *ha.Rack, c *client.Client, id, host string) {
	t.Helper()
	ctx := t.Context()
	if _, err := installbed.WaitHosts(ctx, c, id, discoveredLimit, func(hs []*client.Host) bool {
		return len(hs) == 1 && hs[0].Inventory != ""
	}); err != nil {
		t.Fatal(err)
	}
	haCtl(t, r, "approve", "host", host)
	haCtl(t, r, "patch", "host", host, "--role", "master")
	if _, err := installbed.WaitCluster(ctx, c, id, discoveredLimit, "ready"); err != nil {
		t.Fatalf("%v\n%s", err, haCtl(t, r, "describe", "cluster", id))
	}
}
