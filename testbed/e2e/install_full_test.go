package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/testbed/e2e/installbed"
)

// TestInstallFull: three control-plane VMs and a worker, booted two at a
// time, installed with rackbootctl into a cluster with VIPs whose role
// Ignition comes from the openshift-install stand-in (which also makes the
// credentials). Every host is installed at stage Done, each installed
// system applied its role's config, and the kubeconfig and kubeadmin
// password download. Then day 2: the cluster is opened to workers, a fifth
// VM boots from the same infra-env, is approved and installed with
// `rackbootctl install host`, and joins as added-to-existing-cluster with
// its first boot reporting Done.
func TestInstallFull(t *testing.T) {
	nodes := append(installbed.Nodes("master", 0, 3), installbed.Nodes("worker", 3, 2)...)
	day1, day2 := nodes[:4], nodes[4]
	bed := newInstallBed(t, nodes, installbed.GeneratorOpenShiftInstall)
	ctx := t.Context()
	id, err := bed.CreateCluster(ctx, "full", false)
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]string{}
	for _, n := range nodes {
		roles[n.Name], _, _ = strings.Cut(n.Name, "-")
	}
	vms, err := bed.BootWaves(ctx, day1, 2, installbed.AgentStartRE, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	discover(t, bed, id, day1, roles)
	if _, err := installbed.WaitCluster(ctx, bedAPI(t, bed), id, discoveredLimit, "ready"); err != nil {
		t.Fatalf("%v\n%s", err, bedCtl(t, bed, "describe", "cluster", id))
	}
	cl, wall := install(t, bed, id, "full")
	t.Logf("rackbootctl install full → installed in %s", wall)
	assertBootstrap(t, cl)
	assertInstalled(t, bed, id, vms, roles)
	assertCredentials(t, bed, id)
	timeline(t, bed, id, "Three control-plane nodes and a worker (TestInstallFull)", vms, wall)
	addDay2Worker(t, ctx, bed, id, day2)
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

// assertCredentials: the stand-in's kubeconfig and kubeadmin password
// download with rackbootctl, to a 0600 file and to a pipe.
func assertCredentials(t *testing.T, bed *installbed.Bed, id string) {
	t.Helper()
	kc := bed.Dir + "/kubeconfig"
	if out := bedCtl(t, bed, "download", "credentials", "kubeconfig", "--cluster", "full", "-o", kc); out != "" {
		t.Errorf("download -o printed %q", out)
	}
	b := readFile(t, kc)
	if !strings.Contains(b, "server: https://api.full."+installbed.BaseDomain+":6443") || !strings.Contains(b, "current-context: admin") {
		t.Errorf("kubeconfig:\n%s", b)
	}
	pw := bedCtl(t, bed, "download", "credentials", "kubeadmin-password", "--cluster", id)
	if len(strings.TrimSpace(pw)) < 16 {
		t.Errorf("kubeadmin-password %q is too short", pw)
	}
	ic := bedCtl(t, bed, "download", "files", "install-config.yaml", "--cluster", id)
	for _, want := range []string{"baseDomain: " + installbed.BaseDomain, "  name: full", "replicas: 3", installbed.APIVIP} {
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
