package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/testbed/e2e/installbed"
	"github.com/rackboot/rackboot/testbed/netns"
)

// ovmfBoot matches OVMF's boot attempts on the serial console.
var ovmfBoot = regexp.MustCompile(`BdsDxe: (?:loading|failed to load) Boot[0-9A-F]+ "([^"]+)"`)

// createSNO creates a single-node cluster named name and an infra-env of
// the same name bound to it, with rackbootctl; it returns their ids.
func createSNO(t *testing.T, ctx context.Context, ns *netns.NS, c *apiClient, dir, name string) (cluster, infraEnv string) {
	t.Helper()
	ps, key := filepath.Join(dir, "pull-secret.json"), filepath.Join(dir, "id.pub")
	if err := os.WriteFile(ps, []byte(installbed.PullSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte(installbed.SSHKey+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	created := func(kind, out string) string {
		id, ok := strings.CutSuffix(strings.TrimSpace(out), " created")
		id, ok2 := strings.CutPrefix(id, kind+"/")
		if !ok || !ok2 {
			t.Fatalf("rackbootctl create %s printed %q", kind, out)
		}
		return id
	}
	cluster = created("cluster", ctl(t, ctx, ns, c, "create", "cluster", "--name", name, "--version", "4.16",
		"--base-domain", installbed.BaseDomain, "--image-set", "testbed", "--machine-network", installbed.MachineNetwork,
		"--cluster-network", "10.128.0.0/14", "--service-network", "172.30.0.0/16",
		"--pull-secret-file", ps, "--ssh-key-file", key, "--sno"))
	infraEnv = created("infra-env", ctl(t, ctx, ns, c, "create", "infra-env", "--name", name, "--cluster", cluster,
		"--cpu-arch", "x86_64", "--pull-secret-file", ps, "--ssh-key-file", key))
	return cluster, infraEnv
}

// waitCluster polls cluster id until its status is want.
func waitCluster(t *testing.T, ctx context.Context, c *apiClient, id, want string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		var cl models.Cluster
		code, body, err := c.do("GET", "/clusters/"+id, nil, &cl)
		if err == nil && code == 200 && cl.Status == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster %s is not %s after %s: %d %v %s", id, want, limit, code, err, body)
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(3 * time.Second):
		}
	}
}

// installBMHs installs the VMs' single-node clusters and checks that the
// BMC took each host from the written disk to the installed OS: the BMH
// ejected the media (virtual-media VMs), set a one-time disk boot and
// reset, and is detached; the VM's firmware booted the disk first and the
// OS reported its first boot.
func installBMHs(t *testing.T, ctx context.Context, ns *netns.NS, c *apiClient, bed *bmcBed, vms []bmhVM, clusters map[string]string, hosts map[string]models.APIHost) {
	t.Helper()
	for _, v := range vms {
		waitCluster(t, ctx, c, clusters[v.name], "ready", discoveredLimit)
	}
	t.Log("the single-node clusters are ready")
	started := time.Now()
	for _, v := range vms {
		ctl(t, ctx, ns, c, "install", clusters[v.name])
	}
	for _, v := range vms {
		waitCluster(t, ctx, c, clusters[v.name], "installed", installLimit)
	}
	t.Logf("rackbootctl install to the clusters installed in %s", time.Since(started).Round(time.Second))
	bmhs, err := listBMHs(c)
	if err != nil {
		t.Fatal(err)
	}
	var evs []models.Event
	c.must(200, "GET", "/events", nil, &evs)
	for _, v := range vms {
		b := bmhs[v.name]
		if _, ok := b.Metadata.Annotations["baremetalhost.metal3.io/detached"]; !ok || b.Status == nil ||
			b.Status.Provisioning.State != "detached" || b.Status.OperationalStatus != "detached" {
			t.Errorf("%s: not detached after the install: %s", v.name, bmhSummary(map[string]models.BareMetalHost{v.name: b}))
		}
		checkBMHEvents(t, v, hosts[v.name].ID, evs)
		// The OS reports Done before its console line shows: wait for it.
		if vm := bed.machines[v.id].VM(); vm != nil {
			wctx, cancel := context.WithTimeout(ctx, time.Minute)
			if _, err := vm.WaitFor(wctx, installbed.FirstBootRE); err != nil {
				t.Errorf("%s: the installed system never printed %q: %v", v.name, installbed.MarkerFirstBootDone, err)
			}
			cancel()
		}
		console := bed.console(v.id)
		first := ovmfBoot.FindStringSubmatch(console)
		if first == nil || strings.Contains(first[1], "DVD") || strings.Contains(first[1], "PXE") {
			t.Errorf("%s: after the BMC's reset the firmware did not boot the disk first (%q)", v.name, first)
		}
		for _, want := range []string{installbed.MarkerOSBoot, installbed.MarkerFirstBootDone} {
			if !strings.Contains(console, want) {
				t.Errorf("%s: the installed system never printed %q", v.name, want)
			}
		}
		if !v.pxe {
			if m, err := bed.svc.Media(v.id); err != nil || m.Inserted {
				t.Errorf("%s: virtual media still inserted after the install: %+v %v", v.name, m, err)
			}
		}
	}
}

// checkBMHEvents: the hand-over to the disk left its events on the host.
func checkBMHEvents(t *testing.T, v bmhVM, hostID string, evs []models.Event) {
	t.Helper()
	var got []string
	for _, e := range evs {
		if e.HostID == hostID && strings.HasPrefix(e.Name, "bmh_") {
			got = append(got, e.Name+": "+e.Message)
		}
	}
	want := []string{"bmh_boot_once: BareMetalHost " + v.name + ": next boot (once) from Hdd",
		"bmh_reset: BareMetalHost " + v.name + ": reset", "bmh_detached: BareMetalHost " + v.name + ": detached"}
	if !v.pxe {
		want = append([]string{"bmh_media_ejected: BareMetalHost " + v.name + ": ejected the virtual media"}, want...)
	}
	all := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("%s: no event %q among the host's BMH events:\n%s", v.name, w, all)
		}
	}
}
