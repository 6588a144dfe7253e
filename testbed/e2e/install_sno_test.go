package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/testbed/e2e/installbed"
	"github.com/rackboot/rackboot/testbed/image"
)

// TestInstallSNO: one OVMF VM with an empty virtio disk, from power-on to
// an installed single-node cluster, driven with rackbootctl as a user
// would: create the cluster and its infra-env, boot the VM (network, then
// disk), approve the host, install. The VM network-boots discovery, its
// agent writes the testbed OS and the host's Ignition to the disk and
// reboots; iPXE now says exit, so OVMF boots the disk, whose first boot
// applies the Ignition (the user's master.ign: RACKBOOT-ROLE) and reports
// Done. The cluster is installed, the host Done; the role configs are
// downloadable, the credentials are not (user configs make none). Then the
// VM is reset once more and boots its disk again without running discovery
// or the first boot again.
func TestInstallSNO(t *testing.T) {
	nodes := installbed.Nodes("sno", 0, 1)
	bed := newInstallBed(t, nodes, installbed.GeneratorUserConfigs)
	ctx := t.Context()
	id, err := bed.CreateCluster(ctx, "sno", true)
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]string{"sno-0": "master"}
	vms, err := bed.BootWaves(ctx, nodes, 1, installbed.AgentStartRE, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	discover(t, bed, id, nodes, roles)
	if _, err := installbed.WaitCluster(ctx, bedAPI(t, bed), id, discoveredLimit, "ready"); err != nil {
		t.Fatalf("%v\n%s", err, bedCtl(t, bed, "describe", "cluster", id))
	}
	_, wall := install(t, bed, id, "sno")
	t.Logf("rackbootctl install sno → installed in %s", wall)
	assertInstalled(t, bed, id, vms, roles)
	assertUserConfigFiles(t, bed, id)
	timeline(t, bed, id, "Single node (TestInstallSNO)", vms, wall)
	assertBootsDiskAgain(t, ctx, bed, id, vms[0])
}

// assertUserConfigFiles: the cluster's master.ign is the user's, and with
// user configs there is no kubeconfig: the download says so and exits 1.
func assertUserConfigFiles(t *testing.T, bed *installbed.Bed, id string) {
	t.Helper()
	want, err := installbed.RoleConfig("master")
	if err != nil {
		t.Fatal(err)
	}
	if got := bedCtl(t, bed, "download", "files", "master.ign", "--cluster", id); got != string(want) {
		t.Errorf("download files master.ign:\n%s\nwant the user's master.ign:\n%s", got, want)
	}
	out, err := bed.Ctl(t.Context(), "download", "credentials", "kubeconfig", "--cluster", id)
	if err == nil || out != "" || !strings.Contains(err.Error(), "kubeconfig") {
		t.Errorf("download credentials kubeconfig of a user-configs cluster: %q, %v; want exit 1 naming the kubeconfig", out, err)
	}
}

// assertBootsDiskAgain resets the installed VM: it boots its disk again
// (RACKBOOT-OS-BOOT a second time), not discovery (no new agent), and does
// not run its first boot again; the host stays installed.
func assertBootsDiskAgain(t *testing.T, ctx context.Context, bed *installbed.Bed, id string, vm *installbed.VM) {
	t.Helper()
	agents, done := vm.Count(image.MarkerAgentStart), vm.Count(installbed.MarkerFirstBootDone)
	reset := time.Now()
	if err := vm.SystemReset(ctx); err != nil {
		t.Fatalf("resetting %s: %v", vm.Node.Name, err)
	}
	if err := vm.AwaitCount(ctx, installbed.MarkerOSBoot, 2, installbed.BootLimit); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: reset to the installed OS again in %s", vm.Node.Name, time.Since(reset).Round(time.Second))
	if err := vm.AwaitCount(ctx, installbed.MarkerOSReady, 2, installbed.BootLimit); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(vm.Console(), "RACKBOOT-OS-FIRSTBOOT-SKIPPED") {
		t.Errorf("%s: the second boot did not say it skipped the first boot", vm.Node.Name)
	}
	if n := vm.Count(image.MarkerAgentStart); n != agents {
		t.Errorf("%s: the reset VM ran discovery again (%d agent starts, was %d)", vm.Node.Name, n, agents)
	}
	if n := vm.Count(installbed.MarkerFirstBootDone); n != done {
		t.Errorf("%s: the first boot ran again after the reset (%d reports, was %d)", vm.Node.Name, n, done)
	}
	hs, err := installbed.HostsOf(ctx, bedAPI(t, bed), id)
	if err != nil || len(hs) != 1 || hs[0].Status != "installed" {
		t.Errorf("after the reset: hosts %s, %v; want one installed", installbed.Summary(hs), err)
	}
}
