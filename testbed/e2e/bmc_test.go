package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/testbed/coreosimage"
	"github.com/rackboot/rackboot/testbed/e2e/installbed"
	"github.com/rackboot/rackboot/testbed/isoimage"
	"github.com/rackboot/rackboot/testbed/netns"
)

// bmhBackoff is the BMH controller's first backoff (bmhctl.DefaultBackoff).
const bmhBackoff = 15 * time.Second

// TestBMCVirtualMediaAndPXE: rackbootd drives two UEFI VMs through the
// Redfish emulator from their BareMetalHosts, created with `rackbootctl
// create bmh -f` from a metal3 manifest. vm1 (no PXE at all) is a Dell
// iDRAC 9 (idrac-virtualmedia://): it gets its infra-env's discovery ISO
// as virtual media, the iDRAC's OEM boot-once of the virtual CD and power
// on; vm2 (redfish://, the plain emulator) a one-time PXE boot and power
// on. Both boot the discovery image, register, and are paired with their
// BMH by boot MAC: approved, role and hostname from the annotations,
// installation disk from the root device hints. A third BMH with a wrong
// password shows the error, and the BMC hears from it no faster than its
// backoff. Then each host installs its single-node cluster: the agent
// writes the disk and leaves the reboot to the BMC (external_reboot),
// rackbootd ejects the media, sets a one-time disk boot and resets, the
// installed OS boots and reports Done, and the BMHs are detached.
func TestBMCVirtualMediaAndPXE(t *testing.T) { runBMC(t, bmhVMs, true) }

// TestBMCVendorsILOSupermicro: the same from discovery ISO to the OS
// booted from disk for an HPE iLO 5 (ilo5-virtualmedia://: the media
// inserted with BootOnNextServerReset, without which the iLO boots the
// disk) and a Supermicro X12 (redfish-virtualmedia://: its manager's
// collection lists no slot, the ISO goes into CD1; the CD is booted
// through UefiCd, the legacy Cd boots the disk).
func TestBMCVendorsILOSupermicro(t *testing.T) { runBMC(t, vendorVMs, false) }

// TestBMCVendorLenovo: the same for a Lenovo XCC
// (redfish-virtualmedia://: its slot has no InsertMedia and is PATCHed,
// and shows the image a little later).
func TestBMCVendorLenovo(t *testing.T) { runBMC(t, lenovoVMs, false) }

// runBMC runs the BMC bed for vms (with wrong, the wrong-password BMH
// too) from `rackbootctl create bmh -f` to the installed OS booted from
// disk.
func runBMC(t *testing.T, vms []bmhVM, wrong bool) {
	requireE2E(t, "gcc", "sgdisk", "mcopy", "objcopy")
	if err := isoimage.CheckTools(); err != nil {
		t.Fatalf("RACKBOOT_E2E=1 but %v (make deps)", err)
	}
	ctx := t.Context()
	m := liveMirror(t, ctx)
	ns := newSegment(t, ctx)
	if len(vms) > 1 {
		if err := ns.AddTap(ctx, "tap1", bridge); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	_, p, c := startWithConfig(t, ctx, ns, dir, bmcConfig(t, m, dir, vms))
	clusters, infraEnvs := map[string]string{}, map[string]string{}
	for _, v := range vms {
		clusters[v.name], infraEnvs[v.name] = createSNO(t, ctx, ns, c, dir, v.ie)
	}
	bed := startBMC(t, ctx, ns, vms)

	manifest := filepath.Join(dir, "bmh.yaml")
	if err := os.WriteFile(manifest, []byte(bmhManifest(vms, wrong)), 0o600); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	out := ctl(t, ctx, ns, c, "create", "bmh", "-f", manifest)
	names := vms
	if wrong {
		names = append(append([]bmhVM(nil), vms...), bmhVM{name: "bmh-wrong"})
	}
	for _, v := range names {
		if !strings.Contains(out, "baremetalhost/"+v.name+" created") {
			t.Errorf("rackbootctl create bmh did not create %s:\n%s", v.name, out)
		}
	}
	hosts := waitPaired(t, ctx, c, vms, infraEnvs, started)
	for _, v := range vms {
		checkPairedHost(t, v, hosts[v.name])
	}
	checkBootPaths(t, bed, p, c, vms, wrong)
	if wrong {
		checkWrongPassword(t, ctx, ns, c, bed)
	}
	if t.Failed() {
		t.Fatalf("discovery failed; rackbootctl get bmh -o wide:\n%s", ctl(t, ctx, ns, c, "get", "bmh", "-o", "wide"))
	}
	installBMHs(t, ctx, ns, c, bed, vms, clusters, hosts)
	checkVendorPaths(t, bed, vms)
}

// checkVendorPaths: each VM's BMC saw its vendor's path taken.
func checkVendorPaths(t *testing.T, bed *bmcBed, vms []bmhVM) {
	t.Helper()
	for _, v := range vms {
		if v.vendor == "" {
			continue
		}
		got := bed.fronts[v.id].Taken()
		t.Logf("%s (%s): vendor paths taken: %q", v.name, v.vendor, got)
		for _, want := range v.taken {
			if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, want) }) {
				t.Errorf("%s: the %s BMC never saw %q; it saw:\n%s", v.name, v.vendor, want, strings.Join(got, "\n"))
			}
		}
	}
}

// bmcConfig writes the user's role configs into dir/roles and returns
// rackbootd's config for the BMC test: full DHCP with a reservation per
// VM and the CoreOS-shaped image set of m with the testbed thresholds:
// PXE hosts boot its live kernel, initramfs and rootfs, virtual-media
// hosts its live ISO (the config in the embed area), and installing hosts
// write its metal raw.xz with the user's role configs. No default
// infra-env: the BMHs' labels say which infra-env a MAC boots.
func bmcConfig(t *testing.T, m coreosimage.Mirror, dir string, vms []bmhVM) string {
	t.Helper()
	roleDir, err := installbed.WriteRoleConfigs(dir)
	if err != nil {
		t.Fatal(err)
	}
	var res []reservation
	for _, v := range vms {
		res = append(res, reservation{mac: v.mac, ip: v.ip, name: v.name})
	}
	set := coreosimage.ImageSet{Name: discoveryImageSet, Version: "4.16", Mirror: m,
		Extra: fmt.Sprintf("generator = \"user-configs\"\nrole_ignition_dir = %q\n", roleDir) + thresholdsTOML(testbedThresholds(), true)}
	return discoveryConfigHead(t, dir, res) + fmt.Sprintf(`
[engine]
monitor_interval = "2s"
install_timeout = %q
%s
[api]
admin_remote = true
`, installbed.InstallTimeout, set.TOML())
}

// ctl runs rackbootctl inside ns as the admin and returns its output.
func ctl(t *testing.T, ctx context.Context, ns *netns.NS, c *apiClient, args ...string) string {
	t.Helper()
	bin := filepath.Join(filepath.Dir(rackbootd(t)), "rackbootctl")
	cmd := ns.Command(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "RACKBOOT_URL=http://"+serverIP+":8080", "RACKBOOT_TOKEN="+c.token)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rackbootctl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// listBMHs is GET /baremetal-hosts by name.
func listBMHs(c *apiClient) (map[string]models.BareMetalHost, error) {
	var list []models.BareMetalHost
	code, b, err := c.do("GET", "/baremetal-hosts", nil, &list)
	if err == nil && code != 200 {
		err = fmt.Errorf("GET /baremetal-hosts: %d %s", code, b)
	}
	out := map[string]models.BareMetalHost{}
	for _, h := range list {
		out[h.Metadata.Name] = h
	}
	return out, err
}

// waitPaired waits until the VMs registered (each into the infra-env of
// its BMH, by BMH name in infraEnvs) and their BMHs are paired with them;
// it returns the hosts by BMH name.
func waitPaired(t *testing.T, ctx context.Context, c *apiClient, vms []bmhVM, infraEnvs map[string]string, started time.Time) map[string]models.APIHost {
	t.Helper()
	byName := map[string]models.APIHost{}
	var bmhs map[string]models.BareMetalHost
	deadline := time.Now().Add(registerLimit)
	for {
		var err error
		if bmhs, err = listBMHs(c); err == nil && paired(c, vms, bmhs, infraEnvs, byName) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pairing: not done after %s (%v); BMHs: %s", registerLimit, err, bmhSummary(bmhs))
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(2 * time.Second):
		}
	}
	t.Logf("BMHs created to all hosts registered, paired and approved in %s: %s",
		time.Since(started).Round(time.Second), bmhSummary(bmhs))
	return byName
}

// paired: each VM's host registered and is approved, and its BMH names it.
func paired(c *apiClient, vms []bmhVM, bmhs map[string]models.BareMetalHost, infraEnvs map[string]string, byName map[string]models.APIHost) bool {
	for _, v := range vms {
		hs, err := listHosts(c, infraEnvs[v.name])
		if err != nil {
			return false
		}
		h, _, ok := hostByMAC(hs, v.mac)
		b := bmhs[v.name]
		if !ok || b.Status == nil || b.Status.HostID != h.ID || !h.Approved {
			return false
		}
		byName[v.name] = h
	}
	return true
}

func bmhSummary(bmhs map[string]models.BareMetalHost) string {
	var parts []string
	for name, b := range bmhs {
		if b.Status == nil {
			parts = append(parts, name+": no status")
			continue
		}
		s := b.Status
		parts = append(parts, fmt.Sprintf("%s: %s/%s power=%s host=%s last=%q err=%s(%d) %q", name, s.Provisioning.State,
			s.OperationalStatus, s.PowerState, s.HostID, s.LastOperation, s.ErrorType, s.ErrorCount, s.ErrorMessage))
	}
	return strings.Join(parts, "; ")
}

// checkPairedHost: the host carries what its BMH's annotations and hints
// say, as upstream's BMAC copies them.
func checkPairedHost(t *testing.T, v bmhVM, h models.APIHost) {
	t.Helper()
	if h.Role != models.HostRoleMaster || h.RequestedHostname != v.name {
		t.Errorf("%s: host role %q hostname %q, want master %q (the annotations)", v.name, h.Role, h.RequestedHostname, v.name)
	}
	var inv models.Inventory
	if err := json.Unmarshal([]byte(h.Inventory), &inv); err != nil {
		t.Fatalf("%s: inventory: %v", v.name, err)
	}
	var disk *models.Disk
	for _, d := range inv.Disks {
		if d != nil && d.ID == h.InstallationDiskID {
			disk = d
		}
	}
	if disk == nil || disk.SizeBytes < 20<<30 {
		t.Errorf("%s: installation disk %q is not the ≥20 GiB disk rootDeviceHints ask for (disks %s)", v.name, h.InstallationDiskID, diskList(inv.Disks))
	}
}

// checkBootPaths: the virtual-media VMs booted the ISO from their CD
// drive and never tried PXE; the PXE VMs PXE booted through rackbootd's
// iPXE chain; the BMC downloaded the ISO from rackbootd, whose URL (a
// capability) shows in no log or event; every BMC action left an event
// (with wrong, the wrong password's error too).
func checkBootPaths(t *testing.T, bed *bmcBed, p *proc, c *apiClient, vms []bmhVM, wrong bool) {
	t.Helper()
	var tokens []string
	for _, v := range vms {
		console := bed.console(v.id)
		if v.pxe {
			script := "/boot/" + strings.ReplaceAll(v.mac, ":", "-") + "/script.ipxe"
			if !strings.Contains(console, "iPXE") || !strings.Contains(console, script) {
				t.Errorf("%s did not PXE boot rackbootd's script %s:\n%s", v.id, script, qemu0(console))
			}
			continue
		}
		if !strings.Contains(console, "UEFI QEMU DVD-ROM") || strings.Contains(console, "PXE") || strings.Contains(console, "iPXE") {
			t.Errorf("%s did not boot from its CD drive alone:\n%s", v.id, qemu0(console))
		}
		m, err := bed.svc.Media(v.id)
		if err != nil || !strings.HasSuffix(m.Image, "/discovery.iso") || strings.Contains(m.Image, "?") || len(m.Image) > 255 {
			t.Errorf("%s's virtual media = %+v, %v; want rackbootd's .iso URL (no query, ≤255)", v.id, m, err)
			continue
		}
		tokens = append(tokens, strings.Split(strings.TrimPrefix(m.Image, "http://"), "/")[3])
	}
	var evs []models.Event
	c.must(200, "GET", "/events", nil, &evs)
	var names []string
	for _, e := range evs {
		for _, token := range tokens {
			if strings.Contains(e.Message, token) {
				t.Errorf("event shows the image token: %s", e.Message)
			}
		}
		if strings.Contains(e.Message, bmcPassword) {
			t.Errorf("event shows the BMC password: %s", e.Message)
		}
		if strings.HasPrefix(e.Name, "bmh_") {
			names = append(names, e.Name)
		}
	}
	want := []string{"bmh_created", "bmh_boot_once", "bmh_power_on", "bmh_paired"}
	if len(tokens) > 0 {
		want = append(want, "bmh_media_inserted")
	}
	if wrong {
		want = append(want, "bmh_error")
	}
	for _, w := range want {
		if !strings.Contains(strings.Join(names, " "), w) {
			t.Errorf("no %s event (BMH events: %v)", w, names)
		}
	}
	logs := p.out.String()
	for _, token := range tokens {
		if strings.Contains(logs, token) {
			t.Error("rackbootd's log shows the image token")
		}
	}
	if strings.Contains(logs, bmcPassword) {
		t.Error("rackbootd's log shows the BMC password")
	}
}

func qemu0(console string) string {
	lines := strings.Split(console, "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}

// checkWrongPassword: the BMH says its credentials were refused, and the
// BMC got its attempts no closer together than the doubling backoff.
func checkWrongPassword(t *testing.T, ctx context.Context, ns *netns.NS, c *apiClient, bed *bmcBed) {
	t.Helper()
	bmhs, err := listBMHs(c)
	if err != nil {
		t.Fatal(err)
	}
	s := bmhs["bmh-wrong"].Status
	if s == nil || s.ErrorType != "bad-credentials" || s.OperationalStatus != "error" || s.ErrorCount < 1 ||
		!strings.Contains(s.ErrorMessage, "rejected the credentials") {
		t.Errorf("bmh-wrong status = %+v", s)
		return
	}
	times, lines := bed.wrong.requests()
	attempts := groupAttempts(times, 3*time.Second)
	t.Logf("bmh-wrong: %d requests in %d attempts (status: %d errors, next retry %s): %v", len(times), len(attempts),
		s.ErrorCount, s.NextRetryTime.Time().Format(time.TimeOnly), lines)
	if len(attempts) > s.ErrorCount+1 {
		t.Errorf("%d attempts on the BMC, but the BMH counts %d failures", len(attempts), s.ErrorCount)
	}
	for i := 1; i < len(attempts); i++ {
		gap := attempts[i][0].Sub(attempts[i-1][len(attempts[i-1])-1])
		want := bmhBackoff << (i - 1)
		if gap < want-time.Second {
			t.Errorf("attempt %d came %s after attempt %d; the backoff is %s", i+1, gap.Round(100*time.Millisecond), i, want)
		}
	}
	out := ctl(t, ctx, ns, c, "describe", "bmh", "bmh-wrong")
	if !strings.Contains(out, "bad-credentials") || strings.Contains(out, "not-the-password") {
		t.Errorf("rackbootctl describe bmh bmh-wrong:\n%s", out)
	}
}

// groupAttempts splits request times into attempts: runs of requests less
// than gap apart.
func groupAttempts(times []time.Time, gap time.Duration) [][]time.Time {
	var out [][]time.Time
	for i, tm := range times {
		if i == 0 || tm.Sub(times[i-1]) >= gap {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], tm)
	}
	return out
}
