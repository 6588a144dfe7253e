package validation

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

func checkConnected(h HostFacts, t Thresholds) Result {
	if h.CheckedInAt.IsZero() || h.Now.Sub(h.CheckedInAt) <= t.disconnectAfter() {
		return result(HostConnected, StatusSuccess, "Host is connected")
	}
	return result(HostConnected, StatusFailure, "Host is disconnected")
}

func checkMediaConnected(h HostFacts, _ Thresholds) Result {
	if h.MediaDisconnected {
		return result(HostMediaConnected, StatusFailure, StatusInfoMediaDisconnected)
	}
	return result(HostMediaConnected, StatusSuccess, "Media device is connected")
}

func checkHasInventory(h HostFacts, _ Thresholds) Result {
	if h.Inventory == nil {
		return result(HostHasInventory, StatusFailure, "Inventory has not been received for the host")
	}
	return result(HostHasInventory, StatusSuccess, "Valid inventory exists for the host")
}

func truncationReason(tr *models.InventoryTruncation) string {
	msg := fmt.Sprintf("Inventory is truncated (%s)", tr.Type)
	if len(tr.Reasons) > 0 {
		msg += ": " + strings.Join(tr.Reasons, "; ")
	}
	return msg
}

func checkNotPartiallyTruncated(h HostFacts, _ Thresholds) Result {
	const id = HostInventoryNotPartiallyTruncated
	switch {
	case h.Inventory == nil:
		return result(id, StatusPending, "Missing inventory")
	case h.Inventory.Truncation == nil:
		return result(id, StatusSuccess, "Inventory is not truncated")
	case h.Inventory.Truncation.Type == models.InventoryTruncationTypePartial:
		return result(id, StatusFailure, "%s", truncationReason(h.Inventory.Truncation))
	case h.Inventory.Truncation.Type == models.InventoryTruncationTypeFull:
		return result(id, StatusSuccess, "Inventory is not partially truncated (inventory fully truncated)")
	}
	return result(id, StatusError, "Unexpected inventory truncation type")
}

func checkNotFullyTruncated(h HostFacts, _ Thresholds) Result {
	const id = HostInventoryNotFullyTruncated
	switch {
	case h.Inventory == nil:
		return result(id, StatusPending, "Missing inventory")
	case h.Inventory.Truncation == nil:
		return result(id, StatusSuccess, "Inventory is not truncated")
	case h.Inventory.Truncation.Type == models.InventoryTruncationTypePartial:
		return result(id, StatusSuccess, "Inventory is partially truncated")
	case h.Inventory.Truncation.Type == models.InventoryTruncationTypeFull:
		return result(id, StatusFailure, "%s", truncationReason(h.Inventory.Truncation))
	}
	return result(id, StatusError, "Unexpected inventory truncation type")
}

func cpuCount(inv *models.Inventory) int64 {
	if inv == nil || inv.CPU == nil {
		return 0
	}
	return inv.CPU.Count
}

func memory(inv *models.Inventory) (int64, models.MemoryMethod) {
	if inv == nil || inv.Memory == nil {
		return 0, ""
	}
	return inv.Memory.PhysicalBytes, inv.Memory.PhysicalBytesMethod
}

func checkMinCPU(h HostFacts, t Thresholds) Result {
	if h.Inventory == nil {
		return result(HostHasMinCPUCores, StatusPending, "Missing inventory")
	}
	want, got := t.anyRole(h.singleNode()).CPUCores, cpuCount(h.Inventory)
	if got >= want {
		return result(HostHasMinCPUCores, StatusSuccess, "Sufficient CPU cores")
	}
	return result(HostHasMinCPUCores, StatusFailure,
		"The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is %d, found only %d", want, got)
}

func checkMinMemory(h HostFacts, t Thresholds) Result {
	if h.Inventory == nil {
		return result(HostHasMinMemory, StatusPending, "Missing inventory")
	}
	wantMiB := t.anyRole(h.singleNode()).MemoryMiB
	got, method := memory(h.Inventory)
	tolerance := t.MemoryToleranceMiB
	if method == models.MemoryMethodMeminfo {
		// usable memory stands in for physical: allow 2% held by firmware
		tolerance += wantMiB / 50
	}
	if got >= (wantMiB-tolerance)*mib {
		return result(HostHasMinMemory, StatusSuccess, "Sufficient minimum RAM")
	}
	return result(HostHasMinMemory, StatusFailure,
		"The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is %s, found only %s",
		binaryBytes(wantMiB*mib), binaryBytes(got))
}

func checkMinDisks(h HostFacts, t Thresholds) Result {
	switch {
	case h.Inventory == nil:
		return result(HostHasMinValidDisks, StatusPending, "Missing inventory")
	case len(h.Inventory.Disks) == 0:
		return result(HostHasMinValidDisks, StatusError, "Failed to detected disks")
	}
	if _, eligible := h.InstallationDisks(t); len(eligible) > 0 {
		return result(HostHasMinValidDisks, StatusSuccess, "Sufficient disk capacity")
	}
	return result(HostHasMinValidDisks, StatusFailure,
		"No eligible disks were found, please check specific disks to see why they are not eligible")
}

// InstallationDisks returns the host's disks with installation_eligibility
// filled in for its role's minimum disk size, and the eligible ones in
// order of preference: eligible[0] is the default installation disk.
func (h HostFacts) InstallationDisks(t Thresholds) (all, eligible []*models.Disk) {
	return EligibleDisks(h.Inventory, h.roleRequirements(t).DiskGB)
}

func checkCPUForRole(h HostFacts, t Thresholds) Result {
	if h.Inventory == nil {
		return result(HostHasCPUCoresForRole, StatusPending, "Missing inventory or role")
	}
	role, want, got := h.EffectiveRole(), h.roleRequirements(t).CPUCores, cpuCount(h.Inventory)
	if got >= want {
		return result(HostHasCPUCoresForRole, StatusSuccess, "Sufficient CPU cores for role %s", role)
	}
	return result(HostHasCPUCoresForRole, StatusFailure, "Require at least %d CPU cores for %s role, found only %d", want, role, got)
}

func checkMemoryForRole(h HostFacts, t Thresholds) Result {
	if h.Inventory == nil {
		return result(HostHasMemoryForRole, StatusPending, "Missing inventory or role")
	}
	role, wantMiB := h.EffectiveRole(), h.roleRequirements(t).MemoryMiB
	got, _ := memory(h.Inventory)
	if got >= (wantMiB-t.MemoryToleranceMiB)*mib {
		return result(HostHasMemoryForRole, StatusSuccess, "Sufficient RAM for role %s", role)
	}
	return result(HostHasMemoryForRole, StatusFailure, "Require at least %s RAM for role %s, found only %s",
		binaryBytes(wantMiB*mib), role, binaryBytes(got))
}

func checkHostnameUnique(h HostFacts, _ Thresholds) Result {
	switch {
	case h.Cluster == nil:
		return hidden(HostHostnameUnique, "")
	case h.Inventory == nil:
		return result(HostHostnameUnique, StatusPending, "Missing inventory")
	}
	name := h.Hostname()
	if slices.Contains(h.Cluster.OtherHostnames, name) {
		return result(HostHostnameUnique, StatusFailure, "Hostname %s is not unique in cluster", name)
	}
	return result(HostHostnameUnique, StatusSuccess, "Hostname %s is unique in cluster", name)
}

// HostnamePattern is the pattern a host name must match (upstream's).
const HostnamePattern = "^[a-z0-9][a-z0-9-]{0,62}(?:[.][a-z0-9-]{1,63})*$"

// hostnameRE is HostnamePattern compiled (read-only).
var hostnameRE = regexp.MustCompile(HostnamePattern)

// forbiddenHostnames are names every machine has, so never unique.
func forbiddenHostnames() []string {
	return []string{"localhost", "localhost.localdomain", "localhost4", "localhost4.localdomain4",
		"localhost6", "localhost6.localdomain6"}
}

// HostnameValid reports whether a host name is acceptable, as upstream's
// hostname validation: at most 63 characters, HostnamePattern, and none
// of the localhost names.
func HostnameValid(name string) bool {
	return len(name) <= 63 && hostnameRE.MatchString(name) &&
		!slices.Contains(forbiddenHostnames(), name)
}

func checkHostnameValid(h HostFacts, _ Thresholds) Result {
	if h.Inventory == nil {
		return result(HostHostnameValid, StatusFailure, "Missing inventory")
	}
	name := h.Hostname()
	switch {
	case HostnameValid(name):
		return result(HostHostnameValid, StatusSuccess, "Hostname %s is allowed", name)
	case slices.Contains(forbiddenHostnames(), name):
		return result(HostHostnameValid, StatusFailure, "The host name %s is forbidden", name)
	}
	return result(HostHostnameValid, StatusFailure, "Hostname %s is forbidden, hostname should match pattern %s", name, HostnamePattern)
}

// checkIgnitionDownloadable applies to hosts added to an installed cluster
// (day 2), which rackboot does not do yet: it passes silently, as
// upstream's does for day-1 hosts.
func checkIgnitionDownloadable(HostFacts, Thresholds) Result {
	return hidden(HostIgnitionDownloadable, "")
}

func checkPlatformNetwork(h HostFacts, _ Thresholds) Result {
	const id = HostValidPlatformNetworkSettings
	switch {
	case h.Inventory == nil:
		return result(id, StatusPending, "Missing inventory")
	case h.Inventory.SystemVendor == nil:
		return result(id, StatusError, "Validation error")
	}
	product := h.Inventory.SystemVendor.ProductName
	if product != "OpenStack Compute" || h.umn() {
		return result(id, StatusSuccess, "Platform %s is allowed", product)
	}
	if h.Cluster == nil {
		return hidden(id, "")
	}
	return result(id, StatusFailure, "Platform %s is allowed only for Single Node OpenShift or user-managed networking", product)
}
