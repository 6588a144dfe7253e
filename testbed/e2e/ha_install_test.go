package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/apitls"
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

// TestHAKillLeaderDuringInstall: issue 10's end-to-end kubectl flow for a
// single-node cluster through a FOLLOWER of a 3-appliance rack. kubectl
// (with the kubeconfig `rackbootctl kubeconfig` prints for the follower's
// own address) applies the pull secret, ClusterImageSet,
// ClusterDeployment, AgentClusterInstall (controlPlaneAgents 1), InfraEnv
// and NMStateConfig there, and starts `kubectl get agents -w` there and
// on the other follower. The OVMF VM network-boots the InfraEnv's image
// through the leader's service address; its Agent appears and is approved through the follower; the
// installation starts by itself. While the agent writes the OS image to
// its disk (stage "Writing image to disk"), the leader is killed
// (SIGKILL): another appliance takes the service address and the
// controllers, the installation completes, `kubectl wait
// --for=condition=Completed` on the follower returns, and both watches
// started before the kill (one of them on an appliance that stayed a
// follower throughout), never restarted, printed the Agent reaching
// stage Done, a change committed after the kill. The host is installed at
// stage Done and the installed OS booted and reported its first boot.
// Last, `kubectl delete -f` through the follower removes every object
// through the finalizers, and the domain's cluster with them.
func TestHAKillLeaderDuringInstall(t *testing.T) {
	requireE2E(t, "gcc", "sgdisk", "mcopy", "objcopy", kubectlBin)
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
	leader, err := r.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var followers []*ha.Node
	for _, n := range r.Nodes {
		if n != leader {
			followers = append(followers, n)
		}
	}
	follower := followers[0]
	k := followerKubectl(t, r, follower)
	const ns = "hasno"
	file := k.file("hasno.yaml", ztp{Name: ns, ControlPlane: 1, Nodes: []installbed.Node{node}}.manifests())
	k.must("create", "namespace", ns)
	t.Logf("kubectl apply -f hasno.yaml through the follower %s:\n%s", follower.Name, k.must("apply", "-f", file))
	k.must("-n", ns, "wait", "--for=condition=ImageCreated", "infraenv/"+installbed.InfraEnvName, "--timeout=5m")
	id := aciUID(t, k, ns)
	// A watch on each follower: whichever of them the kill makes the
	// leader, the other's stays a follower's.
	watch := k.watch("get", "agents", "-n", ns, "-w", "--output-watch-events")
	other := followerKubectl(t, r, followers[1]).watch("get", "agents", "-n", ns, "-w", "--output-watch-events")
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
	agents := agentsByNode(t, k, ns, []installbed.Node{node})
	approveAgents(t, k, ns, agents, map[string]string{node.Name: "master"})
	at := watch.await(t, 0, installLimit, "Agent at stage "+string(models.HostStageWritingImageToDisk), func(l string) bool {
		return strings.HasPrefix(l, "MODIFIED") && strings.Contains(l, agents[node.Name]) && strings.HasSuffix(strings.TrimSpace(l), string(models.HostStageWritingImageToDisk))
	})
	leader, err = r.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if leader == followers[0] || leader == followers[1] {
		t.Fatalf("the follower %s became the leader before the kill", leader.Name)
	}
	before, _ := watch.snapshot()
	otherBefore, _ := other.snapshot()
	for _, l := range before[at:] {
		if strings.HasSuffix(strings.TrimSpace(l), " "+string(models.HostStageDone)) {
			t.Fatalf("the Agent reached stage Done before the leader was killed: %s", l)
		}
	}
	killed := killLeader(t, ctx, r, leader, "while the disk was being written")
	wall := waitCompleted(t, k, ns)
	t.Logf("kubectl wait --for=condition=Completed through %s returned %s after the kill", follower.Name, wall)
	assertWatchSawDone(t, watch, len(before), agents[node.Name])
	assertWatchSawDone(t, other, len(otherBefore), agents[node.Name])
	c, err := client.New(client.Config{URL: ha.ServiceURL(), Token: r.Token(), HTTP: r.HTTP(30 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	hs, err := installbed.HostsOf(ctx, c, id)
	if err != nil || len(hs) != 1 || hs[0].Status != "installed" || hs[0].Progress == nil || hs[0].Progress.CurrentStage != models.HostStageDone {
		t.Fatalf("hosts %s (%v), want one installed at stage Done", installbed.Summary(hs), err)
	}
	t.Logf("installed %s after the kill", time.Since(killed).Round(time.Second))
	if err := vm.AwaitCount(ctx, installbed.MarkerFirstBootDone, 1, 2*time.Minute); err != nil {
		t.Errorf("the installed system's first boot did not report Done: %v", err)
	}
	if !strings.Contains(vm.Console(), installbed.MarkerOSBoot) {
		t.Errorf("the installed system never printed %q", installbed.MarkerOSBoot)
	}
	deleteAll(t, k, ns, file)
	if out := haCtl(t, r, "get", "clusters"); strings.Contains(out, id) {
		t.Errorf("the cluster is still there after kubectl delete -f:\n%s", out)
	}
}

// followerKubectl is kubectl with the kubeconfig `rackbootctl kubeconfig`
// prints for follower n's own address, with its self-signed API
// certificate as the CA. That certificate names the service address, not
// the follower's: the follower serves one for its address that it signs.
func followerKubectl(t *testing.T, r *ha.Rack, n *ha.Node) *kubectl {
	t.Helper()
	kc, err := r.CtlVia(t.Context(), n.URL(), "kubeconfig", "--ca-file", filepath.Join(n.DataDir(), apitls.CertFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(kc, "server: https://"+n.Addr.String()+":") {
		t.Fatalf("the kubeconfig does not name the follower %s:\n%s", n.Addr, kc)
	}
	return newKubectl(t, r.Client, kc)
}

// assertWatchSawDone: the `kubectl get agents -w --output-watch-events`
// started before the kill is still running and printed, after its first
// from lines, the Agent at stage Done (its Stage column).
func assertWatchSawDone(t *testing.T, w *watchLog, from int, agent string) {
	t.Helper()
	lines, ended := w.snapshot()
	if ended {
		t.Errorf("kubectl get agents -w ended")
	}
	for _, l := range lines[from:] {
		f := strings.Fields(l)
		if len(f) >= 3 && f[0] == "MODIFIED" && f[1] == agent && f[len(f)-1] == string(models.HostStageDone) {
			return
		}
	}
	t.Errorf("kubectl get agents -w printed no MODIFIED %s ... Done after the kill; after it:\n%s", agent, strings.Join(lines[from:], "\n"))
}
