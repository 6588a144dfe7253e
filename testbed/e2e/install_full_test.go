package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/apitls"
	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/testbed/e2e/installbed"
)

// TestInstallFull: three control-plane VMs and a worker installed the way
// the operators' own YAML and kubectl do it (issue 10's end-to-end flow):
// `kubectl apply -f` of a pull secret Secret, ClusterImageSet,
// ClusterDeployment, AgentClusterInstall (controlPlaneAgents 3,
// workerAgents 1, VIPs), InfraEnv and an NMStateConfig per VM, with the
// kubeconfig `rackbootctl kubeconfig` prints; the VMs, booted two at a
// time, network-boot the InfraEnv's image (rackbootd's DHCP and iPXE; the
// config's default_infra_env names the InfraEnv) and their Agents appear;
// they are approved with `kubectl patch`; the installation starts by
// itself (nothing asks for it), with the openshift-install stand-in's role
// Ignition and credentials; `kubectl wait --for=condition=Completed`
// returns; every host is installed at stage Done (rackbootctl and the
// consoles) and the ClusterDeployment's admin kubeconfig and password
// Secrets are readable with kubectl. Then day 2 through the REST API: the
// cluster is opened to workers, a fifth VM boots from the same infra-env,
// is approved and installed with `rackbootctl install host`, and joins as
// added-to-existing-cluster. Last, `kubectl delete -f` removes every
// object through the finalizers, and the domain's cluster with them.
func TestInstallFull(t *testing.T) {
	requireE2E(t, kubectlBin)
	nodes := append(installbed.Nodes("master", 0, 3), installbed.Nodes("worker", 3, 2)...)
	day1, day2 := nodes[:4], nodes[4]
	bed := newInstallBed(t, nodes, installbed.GeneratorOpenShiftInstall)
	ctx := t.Context()
	k := newKubectl(t, bed.NS, bedCtl(t, bed, "kubeconfig", "--ca-file", filepath.Join(bed.Dir, "state", apitls.CertFile)))
	const ns = "full"
	z := ztp{Name: ns, ControlPlane: 3, Workers: 1, VIPs: true, Nodes: day1}
	file := k.file("full.yaml", z.manifests())
	k.must("create", "namespace", ns)
	t.Logf("kubectl apply -f full.yaml:\n%s", k.must("apply", "-f", file))
	k.must("-n", ns, "wait", "--for=condition=ImageCreated", "infraenv/"+installbed.InfraEnvName, "--timeout=5m")
	id := aciUID(t, k, ns)
	roles := map[string]string{}
	for _, n := range nodes {
		roles[n.Name], _, _ = strings.Cut(n.Name, "-")
	}
	vms, err := bed.BootWaves(ctx, day1, 2, installbed.AgentStartRE, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	agents := agentsByNode(t, k, ns, day1)
	approveAgents(t, k, ns, agents, roles)
	wall := waitCompleted(t, k, ns)
	t.Logf("approved with kubectl → kubectl wait --for=condition=Completed returned after %s", wall)
	cl, err := installbed.WaitCluster(ctx, bedAPI(t, bed), id, time.Minute, "installed")
	if err != nil {
		t.Fatal(err)
	}
	assertBootstrap(t, cl)
	assertInstalled(t, bed, id, vms, roles)
	assertKubeCredentials(t, k, ns)
	assertInstallConfig(t, bed, id, ns)
	timeline(t, bed, id, "Three control-plane nodes and a worker (TestInstallFull)", vms, wall)
	addDay2Worker(t, ctx, bed, id, day2)
	deleteAll(t, k, ns, file)
	if out := bedCtl(t, bed, "get", "clusters"); strings.Contains(out, id) {
		t.Errorf("the cluster is still there after kubectl delete -f:\n%s", out)
	}
	if hs, err := installbed.HostsOf(ctx, bedAPI(t, bed), id); err != nil || len(hs) != 0 {
		t.Errorf("hosts left after kubectl delete -f: %s (%v)", installbed.Summary(hs), err)
	}
}

// assertBootstrap: exactly one master bootstraps.
func assertBootstrap(t *testing.T, cl *client.Cluster) {
	t.Helper()
	var boot []string
	for _, h := range cl.Hosts {
		if h.Bootstrap {
			boot = append(boot, installbed.Hostname(h))
			if h.Role != models.HostRoleMaster {
				t.Errorf("bootstrap host %s has role %s", installbed.Hostname(h), h.Role)
			}
		}
	}
	if len(boot) != 1 {
		t.Errorf("bootstrap hosts %v, want one master", boot)
	}
}

// assertKubeCredentials: the ClusterDeployment is installed and names
// the admin kubeconfig and password Secrets, which kubectl reads: the
// stand-in's kubeconfig for the cluster's API and a kubeadmin password.
func assertKubeCredentials(t *testing.T, k *kubectl, ns string) {
	t.Helper()
	cd := k.must("-n", ns, "get", "clusterdeployment", ns, "-o",
		`jsonpath={.spec.installed} {.spec.clusterMetadata.adminKubeconfigSecretRef.name} {.spec.clusterMetadata.adminPasswordSecretRef.name}`)
	if want := "true " + ns + "-admin-kubeconfig " + ns + "-admin-password"; cd != want {
		t.Errorf("ClusterDeployment installed/kubeconfig/password: %q, want %q", cd, want)
	}
	kc := secretValue(t, k, ns, ns+"-admin-kubeconfig", "kubeconfig")
	if !strings.Contains(kc, "server: https://api."+ns+"."+installbed.BaseDomain+":6443") || !strings.Contains(kc, "current-context: admin") {
		t.Errorf("the admin kubeconfig Secret:\n%s", kc)
	}
	if u := secretValue(t, k, ns, ns+"-admin-password", "username"); u != "kubeadmin" {
		t.Errorf("admin password Secret username %q", u)
	}
	if pw := secretValue(t, k, ns, ns+"-admin-password", "password"); len(strings.TrimSpace(pw)) < 16 {
		t.Errorf("kubeadmin password %q is too short", pw)
	}
}

// assertInstallConfig: the install-config.yaml the AgentClusterInstall
// made (rackbootctl download files) has the cluster's name, base domain,
// three control-plane replicas and the API VIP.
func assertInstallConfig(t *testing.T, bed *installbed.Bed, id, name string) {
	t.Helper()
	ic := bedCtl(t, bed, "download", "files", "install-config.yaml", "--cluster", id)
	for _, want := range []string{"baseDomain: " + installbed.BaseDomain, "  name: " + name, "replicas: 3", installbed.APIVIP} {
		if !strings.Contains(ic, want) {
			t.Errorf("install-config.yaml lacks %q:\n%s", want, ic)
		}
	}
}

// addDay2Worker opens the installed cluster to workers and installs node
// n into it.
func addDay2Worker(t *testing.T, ctx context.Context, bed *installbed.Bed, id string, n installbed.Node) {
	t.Helper()
	if out := bedCtl(t, bed, "allow-add-workers", "full"); !strings.HasPrefix(out, "cluster/"+id+" ") {
		t.Errorf("allow-add-workers printed %q", out)
	}
	start := time.Now()
	vms, err := bed.BootWaves(ctx, []installbed.Node{n}, 1, installbed.AgentStartRE, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	discover(t, bed, id, []installbed.Node{n}, map[string]string{n.Name: "worker"})
	if out := bedCtl(t, bed, "install", "host", n.Name); !strings.Contains(out, " installing") {
		t.Errorf("install host %s printed %q", n.Name, out)
	}
	c := bedAPI(t, bed)
	hs, err := installbed.WaitHosts(ctx, c, id, installLimit, func(hs []*client.Host) bool {
		for _, h := range hs {
			if installbed.Hostname(h) == n.Name {
				return h.Progress != nil && h.Progress.CurrentStage == models.HostStageDone
			}
		}
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("day-2 worker %s: power-on to Done in %s", n.Name, time.Since(start).Round(time.Second))
	for _, h := range hs {
		if installbed.Hostname(h) == n.Name && (h.Status != models.HostStatusAddedToExistingCluster || h.Kind != models.HostKindAddToExistingClusterHost) {
			t.Errorf("day-2 host %s: status %s kind %s, want %s %s", n.Name, h.Status, h.Kind,
				models.HostStatusAddedToExistingCluster, models.HostKindAddToExistingClusterHost)
		}
	}
	if err := vms[0].AwaitCount(ctx, installbed.MarkerOSReady, 1, 2*time.Minute); err != nil {
		t.Errorf("day-2 worker %s: its first boot did not end: %v", n.Name, err)
	}
	console := vms[0].Console()
	for _, want := range []string{installbed.MarkerFirstBootDone, installbed.MarkerRole + " worker " + n.Name} {
		if !strings.Contains(console, want) {
			t.Errorf("day-2 worker %s never printed %q", n.Name, want)
		}
	}
	out := bedCtl(t, bed, "get", "hosts", "--cluster", id)
	if strings.Count(out, " installed ") != 4 || !strings.Contains(out, "added-to-existing-cluster") {
		t.Errorf("rackbootctl get hosts after day 2:\n%s", out)
	}
}
