package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/testbed/coreosimage"
	"github.com/rackboot/rackboot/testbed/netns"
	"github.com/rackboot/rackboot/testbed/qemu"
)

// discoveryInfraEnv is the infra-env the test creates and rackbootd boots
// unknown MACs into (its default infra-env).
const discoveryInfraEnv = "testbed"

// TestDiscoveryFromRackbootd: three VMs (two SeaBIOS, one OVMF) network-boot
// the CoreOS-shaped live image set from rackbootd (coreos_stream: seed 001's
// script, the live initramfs fetching and checking coreos.live.rootfs_url,
// rackboot-agent fetched by Ignition), register with its REST API with
// inventory matching the VMs, are validated (the small one fails a hardware
// threshold and says why) and approved; rackbootd is killed with SIGKILL
// and started again: every host and its state is still there and every
// agent checks in again.
func TestDiscoveryFromRackbootd(t *testing.T) {
	requireE2E(t, "gcc")
	ctx := t.Context()
	m := liveMirror(t, ctx)
	ns := newSegment(t, ctx)
	addTaps(t, ctx, ns)
	dir := t.TempDir()
	cfg, p, c := startWithConfig(t, ctx, ns, dir, discoveryConfig(t, m, dir))
	createInfraEnvNamed(c, discoveryInfraEnv)
	ie := infraEnvByName(c, discoveryInfraEnv)

	started := time.Now()
	var vms []*qemu.VM
	for _, h := range discoHosts {
		vms = append(vms, startDiscoVM(t, ctx, ns, h))
	}
	for i, h := range discoHosts {
		waitAgent(t, ctx, h, vms[i], started)
		assertDiscoveryBoot(t, m, vms[i].Console(), p.out.String(), h)
	}
	before := checkDiscovery(t, ctx, c, ie.ID, started, approveWithCtl(t, ctx, ns, c, ie.ID))
	for i, h := range discoHosts {
		assertNoSecrets(t, h.name, vms[i].Console(), jwtHeader)
	}

	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.done
	restarted := time.Now()
	startRackbootd(t, ctx, ns, cfg)
	t.Logf("rackbootd killed (SIGKILL) and started again in %s", time.Since(restarted).Round(100*time.Millisecond))
	checkAfterRestart(t, ctx, c, ie.ID, before, restarted)
	assertAgentsCarriedOn(t, vms)
}

// assertDiscoveryBoot: the VM went through rackbootd's boot chain (its
// console shows iPXE fetching this MAC's script, initrd and kernel, and
// OVMF's own PXE first under UEFI), rackbootd served that initrd and
// kernel whole, the live initramfs took the rootfs the stream names from
// coreos.live.rootfs_url (its sha256 checked) and Ignition fetched
// rackboot-agent from rackbootd. iPXE's "... ok" after a 20 MB download is not looked for:
// its progress output on a slow serial console can swallow it.
func assertDiscoveryBoot(t *testing.T, m coreosimage.Mirror, console, server string, h discoHost) {
	t.Helper()
	path := "/boot/" + strings.ReplaceAll(h.mac, ":", "-")
	want := []string{"iPXE initialising devices", "Filename: http://" + serverIP + ":8080" + path + "/script.ipxe",
		path + "/initrd", path + "/kernel"}
	if h.fw == qemu.UEFI {
		want = append([]string{">>Start PXE over IPv4", "NBP filename is ipxe.efi"}, want...)
	}
	rest := console
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("%s: the console does not show %q (in this order)", h.name, w)
			break
		}
		rest = rest[i+len(w):]
	}
	for _, f := range []string{"initrd", "kernel"} {
		if !strings.Contains(server, "path="+path+"/"+f+" status=200") {
			t.Errorf("%s: rackbootd never served %s/%s whole (status 200)", h.name, path, f)
		}
	}
	for _, p := range []string{"/images/" + discoveryImageSet + "/rootfs.img", "/agent/amd64/rackboot-agent"} {
		if !strings.Contains(server, "path="+p+" status=200") {
			t.Errorf("%s: rackbootd never served %s whole (status 200)", h.name, p)
		}
	}
	rootfs := "RACKBOOT-ROOTFS sha256=" + m.Rootfs.SHA256 + " source=http://" + serverIP + ":8080/images/" + discoveryImageSet + "/rootfs.img"
	if !strings.Contains(console, rootfs) {
		t.Errorf("%s: the console does not show %q", h.name, rootfs)
	}
	if strings.Contains(console, "RACKBOOT-INIT") && !strings.Contains(console, "image=coreos-live") {
		t.Errorf("%s: did not boot the live initramfs", h.name)
	}
}

// jwtHeader starts every ES256 JWT ({"alg":"ES256",...}): no agent token
// may be on a console.
const jwtHeader = "eyJhbGciOiJFUzI1NiIs"

// approveWithCtl approves the UEFI host with `rackbootctl approve host
// NAME` (found by its hostname), as a user would, and the others by PATCH.
func approveWithCtl(t *testing.T, ctx context.Context, ns *netns.NS, c *apiClient, infraEnv string) approver {
	patch := approveByPatch(c, infraEnv)
	return func(d discoHost, h models.APIHost) models.APIHost {
		t.Helper()
		if d.fw != qemu.UEFI {
			return patch(d, h)
		}
		ctl := filepath.Join(filepath.Dir(rackbootd(t)), "rackbootctl")
		cmd := ns.Command(ctx, ctl, "approve", "host", d.name)
		cmd.Env = append(os.Environ(), "RACKBOOT_URL=http://"+serverIP+":8080", "RACKBOOT_TOKEN="+c.token)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("rackbootctl approve host %s: %v\n%s", d.name, err, out)
		}
		t.Logf("rackbootctl approve host %s: %s", d.name, strings.TrimSpace(string(out)))
		var got models.APIHost
		c.must(200, "GET", "/infra-envs/"+infraEnv+"/hosts/"+h.ID, nil, &got)
		return got
	}
}

func createInfraEnvNamed(c *apiClient, name string) {
	c.t.Helper()
	ie := createInfraEnv(c)
	if ie.Name != name {
		c.t.Fatalf("created infra-env %q, want %q", ie.Name, name)
	}
}

func infraEnvByName(c *apiClient, name string) models.InfraEnv {
	c.t.Helper()
	var ies []models.InfraEnv
	c.must(200, "GET", "/infra-envs", nil, &ies)
	for _, ie := range ies {
		if ie.Name == name {
			return ie
		}
	}
	c.t.Fatalf("no infra-env %q in %+v", name, ies)
	return models.InfraEnv{}
}
