package validation

import (
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

func TestHostStatus(t *testing.T) {
	cases := []struct {
		name   string
		change func(h *HostFacts)
		prev   string
		status string
		info   string
	}{
		{"known", nil, models.HostStatusDiscovering, models.HostStatusKnown, StatusInfoKnown},
		{"no inventory", func(h *HostFacts) { h.Inventory = nil }, "", models.HostStatusDiscovering, StatusInfoDiscovering},
		{"fully truncated inventory", func(h *HostFacts) { h.Inventory.Truncation = &models.InventoryTruncation{Type: "full"} },
			models.HostStatusDisconnected, models.HostStatusDiscovering, StatusInfoDiscovering},
		{"media lost", func(h *HostFacts) { h.MediaDisconnected = true }, models.HostStatusKnown, models.HostStatusDisconnected, StatusInfoMediaDisconnected},
		{"silent", func(h *HostFacts) { h.CheckedInAt = testNow.Add(-10 * time.Minute) }, models.HostStatusKnown,
			models.HostStatusDisconnected, StatusInfoDisconnected},
		{"too few cores", func(h *HostFacts) { h.Inventory.CPU.Count = 1 }, models.HostStatusDiscovering, models.HostStatusInsufficient,
			"Host does not meet the minimum hardware requirements: Require at least 4 CPU cores for master role, found only 1 ; " +
				"The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1"},
		{"no machine network", func(h *HostFacts) { h.Cluster.MachineNetworks = nil }, models.HostStatusKnown, models.HostStatusPendingForInput,
			"Waiting for user input: Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs"},
		{"master with 2 cores", func(h *HostFacts) { h.Inventory.CPU.Count = 2 }, models.HostStatusKnown, models.HostStatusInsufficient,
			"Host cannot be installed due to following failing validation(s): Require at least 4 CPU cores for master role, found only 2"},
		{"majority pending", func(h *HostFacts) { h.Cluster.MajorityGroups = nil }, models.HostStatusKnown, models.HostStatusInsufficient,
			"Host cannot be installed due to following failing validation(s): "},
		{"ntp failing does not block", func(h *HostFacts) { h.NTP = nil }, models.HostStatusInsufficient, models.HostStatusKnown, StatusInfoKnown},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := goodHost()
			if tc.change != nil {
				tc.change(&h)
			}
			st, info, ok := HostStatus(tc.prev, true, ValidateHost(h, DefaultThresholds()))
			if !ok || st != tc.status || info != tc.info {
				t.Errorf("HostStatus = %q %q %v\nwant %q %q", st, info, ok, tc.status, tc.info)
			}
		})
	}
}

func TestHostStatusUnbound(t *testing.T) {
	cases := []struct {
		name   string
		change func(h *HostFacts)
		status string
		info   string
	}{
		{"ready to bind", nil, models.HostStatusKnownUnbound, StatusInfoReadyToBeBound},
		{"no inventory", func(h *HostFacts) { h.Inventory = nil }, models.HostStatusDiscoveringUnbound, StatusInfoDiscovering},
		{"silent", func(h *HostFacts) { h.CheckedInAt = testNow.Add(-time.Hour) }, models.HostStatusDisconnectedUnbound, StatusInfoDisconnected},
		{"localhost", func(h *HostFacts) { h.Inventory.Hostname = "localhost" }, models.HostStatusInsufficientUnbound,
			"Host does not meet the minimum hardware requirements: The host name localhost is forbidden"},
		{"small disk", func(h *HostFacts) { h.Inventory.Disks[0].SizeBytes = 21474836480 }, models.HostStatusInsufficientUnbound,
			"Host does not meet the minimum hardware requirements: No eligible disks were found, please check specific disks to see why they are not eligible"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := goodHost()
			h.Cluster, h.Status = nil, models.HostStatusDiscoveringUnbound
			if tc.change != nil {
				tc.change(&h)
			}
			st, info, ok := HostStatus(h.Status, false, ValidateHost(h, DefaultThresholds()))
			if !ok || st != tc.status || info != tc.info {
				t.Errorf("HostStatus = %q %q %v\nwant %q %q", st, info, ok, tc.status, tc.info)
			}
		})
	}
}

func TestHostStatusLeavesOtherStatesAlone(t *testing.T) {
	h := goodHost()
	h.CheckedInAt = testNow.Add(-time.Hour)
	for _, prev := range []string{models.HostStatusInstalling, models.HostStatusBinding, models.HostStatusInstalled, models.HostStatusError} {
		if st, info, ok := HostStatus(prev, true, ValidateHost(h, DefaultThresholds())); ok || st != prev || info != "" {
			t.Errorf("HostStatus(%s) = %q %q %v, want unchanged", prev, st, info, ok)
		}
	}
}

func TestDisableValidation(t *testing.T) {
	h := goodHost()
	h.Inventory.CPU.Count = 2
	rs := ValidateHost(h, DefaultThresholds()).Disable(HostHasCPUCoresForRole)
	r, _ := rs.Get(HostHasCPUCoresForRole)
	if r.Status != StatusDisabled || r.Message != "Validation disabled by configuration" {
		t.Fatalf("disabled result = %+v", r)
	}
	if st, _, _ := HostStatus(models.HostStatusInsufficient, true, rs); st != models.HostStatusKnown {
		t.Errorf("a disabled validation still blocks: %s", st)
	}
}
