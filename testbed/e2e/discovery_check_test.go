package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
	"github.com/rackboot/rackboot/testbed/qemu"
)

// registerLimit bounds power-on to "every host registered and validated".
const registerLimit = 15 * time.Minute

// evaluated reports whether every discoHost is registered with an
// inventory and has left discovering.
func evaluated(hs []models.APIHost) bool {
	for _, d := range discoHosts {
		h, _, ok := hostByMAC(hs, d.mac)
		if !ok || h.ValidationsInfo == "" || strings.HasPrefix(h.Status, models.HostStatusDiscovering) {
			return false
		}
	}
	return true
}

// approver approves one host and returns it as the API then shows it.
type approver func(d discoHost, h models.APIHost) models.APIHost

// approveByPatch is PATCH .../hosts/{id} {"approved": true}.
func approveByPatch(c *apiClient, infraEnv string) approver {
	return func(d discoHost, h models.APIHost) models.APIHost {
		c.t.Helper()
		approve := true
		var out models.APIHost
		c.must(http.StatusCreated, "PATCH", "/infra-envs/"+infraEnv+"/hosts/"+h.ID, models.HostUpdateParams{Approved: &approve}, &out)
		return out
	}
}

// checkDiscovery waits for the three hosts, checks their inventory and
// validations against the VMs, approves them (approve, else by PATCH) and
// returns them by name.
func checkDiscovery(t *testing.T, ctx context.Context, c *apiClient, infraEnv string, started time.Time, approve approver) map[string]models.APIHost {
	t.Helper()
	hs, err := waitHosts(ctx, c, infraEnv, registerLimit, evaluated)
	if err != nil {
		t.Fatalf("registration: %v; hosts: %s", err, summary(hs))
	}
	t.Logf("power-on to three validated hosts in %s: %s", time.Since(started).Round(time.Second), summary(hs))
	if len(hs) != len(discoHosts) {
		t.Errorf("%d hosts registered, want %d: %s", len(hs), len(discoHosts), summary(hs))
	}
	byName := map[string]models.APIHost{}
	for _, d := range discoHosts {
		h, inv, _ := hostByMAC(hs, d.mac)
		checkInventory(t, d, inv)
		checkValidations(t, d, h)
		byName[d.name] = h
	}
	if approve == nil {
		approve = approveByPatch(c, infraEnv)
	}
	for _, d := range discoHosts {
		h := approve(d, byName[d.name])
		if !h.Approved {
			t.Errorf("%s: approved, then shown with approved=false", d.name)
		}
		byName[d.name] = h
	}
	return byName
}

func summary(hs []models.APIHost) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "[%s %s %q approved=%t] ", h.ID, h.Status, h.RequestedHostname, h.Approved)
	}
	return b.String()
}

// checkInventory compares what the agent reported with the VM's hardware.
func checkInventory(t *testing.T, d discoHost, inv *models.Inventory) {
	t.Helper()
	if inv.CPU == nil || inv.CPU.Count != int64(d.cpus) {
		t.Errorf("%s: cpu %+v, want %d cores", d.name, inv.CPU, d.cpus)
	}
	if inv.Memory == nil || inv.Memory.PhysicalBytes != int64(d.memMB)<<20 {
		t.Errorf("%s: memory %+v, want %d MiB", d.name, inv.Memory, d.memMB)
	}
	mode := models.BootModeBIOS
	if d.fw == qemu.UEFI {
		mode = models.BootModeUEFI
	}
	if inv.Boot == nil || inv.Boot.CurrentBootMode != mode {
		t.Errorf("%s: boot %+v, want %s", d.name, inv.Boot, mode)
	}
	if inv.Hostname != d.name {
		t.Errorf("%s: hostname %q", d.name, inv.Hostname)
	}
	for i, gib := range d.disks {
		i := slices.IndexFunc(inv.Disks, func(k *models.Disk) bool { return k != nil && k.Serial == diskSerial(d, i) })
		if i < 0 || inv.Disks[i].SizeBytes != gib<<30 {
			t.Errorf("%s: no %d GiB disk with serial %s in %s", d.name, gib, diskSerial(d, i), diskList(inv.Disks))
		}
	}
	if len(inv.Disks) != len(d.disks) {
		t.Errorf("%s: %d disks reported, the VM has %d: %s", d.name, len(inv.Disks), len(d.disks), diskList(inv.Disks))
	}
	var ips []string
	for _, ifc := range inv.Interfaces {
		if ifc != nil && strings.EqualFold(ifc.MacAddress, d.mac) {
			ips = ifc.IPV4Addresses
		}
	}
	if !slices.Contains(ips, d.ip+"/24") {
		t.Errorf("%s: NIC %s has %v, want %s/24", d.name, d.mac, ips, d.ip)
	}
}

func diskList(ds []*models.Disk) string {
	var s []string
	for _, d := range ds {
		if d != nil {
			s = append(s, fmt.Sprintf("%s(%s,%d)", d.Name, d.Serial, d.SizeBytes))
		}
	}
	return strings.Join(s, " ")
}

// checkValidations: the small host is insufficient because of its RAM and
// says so; the others are known.
func checkValidations(t *testing.T, d discoHost, h models.APIHost) {
	t.Helper()
	var info validation.ValidationsInfo
	if err := json.Unmarshal([]byte(h.ValidationsInfo), &info); err != nil {
		t.Errorf("%s: validations_info: %v: %s", d.name, err, h.ValidationsInfo)
		return
	}
	mem := find(info, validation.HostHasMinMemory)
	if d.name != smallHost {
		if h.Status != models.HostStatusKnownUnbound {
			t.Errorf("%s: status %q (%s), want %s; validations %s", d.name, h.Status, h.StatusInfo, models.HostStatusKnownUnbound, h.ValidationsInfo)
		}
		if mem == nil || mem.Status != validation.StatusSuccess {
			t.Errorf("%s: has-min-memory %+v", d.name, mem)
		}
		return
	}
	if h.Status != models.HostStatusInsufficientUnbound {
		t.Errorf("%s: status %q, want %s", d.name, h.Status, models.HostStatusInsufficientUnbound)
	}
	if mem == nil || mem.Status != validation.StatusFailure || !strings.Contains(mem.Message, "768") {
		t.Errorf("%s: has-min-memory %+v, want a failure naming the 768 MiB found", d.name, mem)
	} else {
		t.Logf("%s: %s: %s (status_info %q)", d.name, mem.ID, mem.Message, h.StatusInfo)
	}
	if !strings.Contains(h.StatusInfo, mem.Message) {
		t.Errorf("%s: status_info %q does not say why", d.name, h.StatusInfo)
	}
}

func find(info validation.ValidationsInfo, id validation.ID) *validation.Result {
	for _, rs := range info {
		for i := range rs {
			if rs[i].ID == id {
				return &rs[i]
			}
		}
	}
	return nil
}

// checkAfterRestart: the same hosts with the same status and approval, and
// each agent checks in after the restart (checked_in_at moves past it).
func checkAfterRestart(t *testing.T, ctx context.Context, c *apiClient, infraEnv string, before map[string]models.APIHost, restarted time.Time) {
	t.Helper()
	hs, err := listHosts(c, infraEnv)
	if err != nil {
		t.Fatalf("after the restart: %v", err)
	}
	if len(hs) != len(before) {
		t.Errorf("after the restart %d hosts, before %d: %s", len(hs), len(before), summary(hs))
	}
	for _, d := range discoHosts {
		h, _, ok := hostByMAC(hs, d.mac)
		b := before[d.name]
		if !ok || h.ID != b.ID || h.Status != b.Status || !h.Approved || h.Inventory == "" {
			t.Errorf("%s after the restart: %s %q approved=%t, before %s %q approved=%t", d.name, h.ID, h.Status, h.Approved, b.ID, b.Status, b.Approved)
		}
	}
	// The agents poll every next_instruction_seconds (60 s) and back off
	// while the appliance is down: allow a few rounds.
	start := time.Now()
	hs, err = waitHosts(ctx, c, infraEnv, 5*time.Minute, func(hs []models.APIHost) bool {
		for _, d := range discoHosts {
			h, _, ok := hostByMAC(hs, d.mac)
			if !ok || !time.Time(h.CheckedInAt).After(restarted) {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatalf("agents after the restart: %v: %s", err, checkins(hs))
	}
	t.Logf("every agent checked in again %s after the restart: %s", time.Since(start).Round(time.Second), checkins(hs))
}

func checkins(hs []models.APIHost) string {
	var s []string
	for _, h := range hs {
		s = append(s, fmt.Sprintf("%s@%s", h.RequestedHostname, time.Time(h.CheckedInAt).Format(time.RFC3339)))
	}
	return strings.Join(s, " ")
}
