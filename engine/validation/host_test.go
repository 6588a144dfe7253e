package validation

import (
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

type hostCase struct {
	name   string
	change func(h *HostFacts)
	id     ID
	status Status
	msg    string
}

func runHostCases(t *testing.T, cases []hostCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(string(tc.id)+"/"+tc.name, func(t *testing.T) {
			h := goodHost()
			if tc.change != nil {
				tc.change(&h)
			}
			r, ok := ValidateHost(h, DefaultThresholds()).Get(tc.id)
			if !ok {
				t.Fatalf("no result for %s", tc.id)
			}
			if r.Status != tc.status || r.Message != tc.msg {
				t.Errorf("%s = %s %q, want %s %q", tc.id, r.Status, r.Message, tc.status, tc.msg)
			}
		})
	}
}

func TestHostHardwareValidations(t *testing.T) {
	noInv := func(h *HostFacts) { h.Inventory = nil }
	runHostCases(t, []hostCase{
		{"recent", nil, HostConnected, StatusSuccess, "Host is connected"},
		{"silent 4m", func(h *HostFacts) { h.CheckedInAt = testNow.Add(-4 * time.Minute) }, HostConnected, StatusFailure, "Host is disconnected"},
		{"media ok", nil, HostMediaConnected, StatusSuccess, "Media device is connected"},
		{"media lost", func(h *HostFacts) { h.MediaDisconnected = true }, HostMediaConnected, StatusFailure, StatusInfoMediaDisconnected},
		{"present", nil, HostHasInventory, StatusSuccess, "Valid inventory exists for the host"},
		{"absent", noInv, HostHasInventory, StatusFailure, "Inventory has not been received for the host"},
		{"partial", func(h *HostFacts) {
			h.Inventory.Truncation = &models.InventoryTruncation{Type: "partial", Reasons: []string{"too many disks"}}
		}, HostInventoryNotPartiallyTruncated, StatusFailure, "Inventory is truncated (partial): too many disks"},
		{"full", func(h *HostFacts) { h.Inventory.Truncation = &models.InventoryTruncation{Type: "full"} },
			HostInventoryNotFullyTruncated, StatusFailure, "Inventory is truncated (full)"},
		{"enough", nil, HostHasMinCPUCores, StatusSuccess, "Sufficient CPU cores"},
		{"one core", func(h *HostFacts) { h.Inventory.CPU.Count = 1 }, HostHasMinCPUCores, StatusFailure,
			"The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1"},
		{"no inventory", noInv, HostHasMinCPUCores, StatusPending, "Missing inventory"},
		{"enough", nil, HostHasMinMemory, StatusSuccess, "Sufficient minimum RAM"},
		{"4 GiB", func(h *HostFacts) { h.Inventory.Memory.PhysicalBytes = 4 * gib }, HostHasMinMemory, StatusFailure,
			"The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only 4.00 GiB"},
		{"within tolerance", func(h *HostFacts) { h.Inventory.Memory.PhysicalBytes = 8*gib - 50*mib }, HostHasMinMemory, StatusSuccess, "Sufficient minimum RAM"},
		{"meminfo 2%", func(h *HostFacts) {
			h.Inventory.Memory.PhysicalBytes, h.Inventory.Memory.PhysicalBytesMethod = 8*gib-200*mib, models.MemoryMethodMeminfo
		}, HostHasMinMemory, StatusSuccess, "Sufficient minimum RAM"},
		{"disk ok", nil, HostHasMinValidDisks, StatusSuccess, "Sufficient disk capacity"},
		{"small disk", func(h *HostFacts) { h.Inventory.Disks[0].SizeBytes = 20 * gb }, HostHasMinValidDisks, StatusFailure,
			"No eligible disks were found, please check specific disks to see why they are not eligible"},
		{"removable", func(h *HostFacts) { h.Inventory.Disks[0].Removable = true }, HostHasMinValidDisks, StatusFailure,
			"No eligible disks were found, please check specific disks to see why they are not eligible"},
		{"no disks", func(h *HostFacts) { h.Inventory.Disks = nil }, HostHasMinValidDisks, StatusError, "Failed to detected disks"},
		{"master", nil, HostHasCPUCoresForRole, StatusSuccess, "Sufficient CPU cores for role master"},
		{"master 2 cores", func(h *HostFacts) { h.Inventory.CPU.Count = 2 }, HostHasCPUCoresForRole, StatusFailure,
			"Require at least 4 CPU cores for master role, found only 2"},
		{"worker 2 cores", func(h *HostFacts) { h.Inventory.CPU.Count, h.Role = 2, models.HostRoleWorker },
			HostHasCPUCoresForRole, StatusSuccess, "Sufficient CPU cores for role worker"},
		{"sno 4 cores", func(h *HostFacts) { h.Inventory.CPU.Count, h.Cluster.SingleNode = 4, true }, HostHasCPUCoresForRole, StatusFailure,
			"Require at least 8 CPU cores for master role, found only 4"},
		{"auto-assign suggested master", func(h *HostFacts) {
			h.Role, h.SuggestedRole, h.Inventory.CPU.Count = models.HostRoleAutoAssign, models.HostRoleMaster, 3
		}, HostHasCPUCoresForRole, StatusFailure, "Require at least 4 CPU cores for master role, found only 3"},
		{"master", nil, HostHasMemoryForRole, StatusSuccess, "Sufficient RAM for role master"},
		{"master 8 GiB", func(h *HostFacts) { h.Inventory.Memory.PhysicalBytes = 8 * gib }, HostHasMemoryForRole, StatusFailure,
			"Require at least 16.00 GiB RAM for role master, found only 8.00 GiB"},
		{"unique", nil, HostHostnameUnique, StatusSuccess, "Hostname master-0 is unique in cluster"},
		{"duplicate", func(h *HostFacts) { h.RequestedHostname = "master-1" }, HostHostnameUnique, StatusFailure, "Hostname master-1 is not unique in cluster"},
		{"valid", nil, HostHostnameValid, StatusSuccess, "Hostname master-0 is allowed"},
		{"localhost", func(h *HostFacts) { h.Inventory.Hostname = "localhost" }, HostHostnameValid, StatusFailure, "The host name localhost is forbidden"},
		{"upper case", func(h *HostFacts) { h.RequestedHostname = "Master_0" }, HostHostnameValid, StatusFailure,
			"Hostname Master_0 is forbidden, hostname should match pattern " + HostnamePattern},
		{"no inventory", noInv, HostHostnameValid, StatusFailure, "Missing inventory"},
		{"qemu", nil, HostValidPlatformNetworkSettings, StatusSuccess, "Platform Standard PC (Q35 + ICH9, 2009) is allowed"},
		{"openstack", func(h *HostFacts) { h.Inventory.SystemVendor.ProductName = "OpenStack Compute" }, HostValidPlatformNetworkSettings,
			StatusFailure, "Platform OpenStack Compute is allowed only for Single Node OpenShift or user-managed networking"},
	})
}

func TestHostNetworkValidations(t *testing.T) {
	umn := func(h *HostFacts) { h.Cluster.UserManagedNetworking = true }
	runHostCases(t, []hostCase{
		{"defined", nil, HostMachineCIDRDefined, StatusSuccess, "Machine Network CIDR is defined"},
		{"undefined", func(h *HostFacts) { h.Cluster.MachineNetworks = nil }, HostMachineCIDRDefined, StatusFailure,
			"Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs"},
		{"umn", umn, HostMachineCIDRDefined, StatusSuccess, "No Machine Network CIDR needed: User Managed Networking"},
		{"inside", nil, HostBelongsToMachineCIDR, StatusSuccess, "Host belongs to all machine network CIDRs"},
		{"outside", func(h *HostFacts) { h.Cluster.MachineNetworks = []string{"10.0.0.0/24"} }, HostBelongsToMachineCIDR, StatusFailure,
			"Host does not belong to machine network CIDRs. Verify that the host belongs to every CIDR listed under machine networks"},
		{"no cidr", func(h *HostFacts) { h.Cluster.MachineNetworks = nil }, HostBelongsToMachineCIDR, StatusPending, "Missing inventory or machine network CIDR"},
		{"member", nil, HostBelongsToMajorityGroup, StatusSuccess, "Host has connectivity to the majority of hosts in the cluster"},
		{"outsider", func(h *HostFacts) { h.ID = "44444444-4444-4444-4444-444444444444" }, HostBelongsToMajorityGroup, StatusFailure,
			"No connectivity to the majority of hosts in the cluster"},
		{"outsider of two", func(h *HostFacts) { h.ID, h.Cluster.HostCount = "4", 2 }, HostBelongsToMajorityGroup, StatusPending,
			"Not enough hosts in cluster to calculate connectivity groups"},
		{"not computed", func(h *HostFacts) { h.Cluster.MajorityGroups = nil }, HostBelongsToMajorityGroup, StatusPending,
			"Machine Network CIDR or Connectivity Majority Groups missing"},
		{"ok", nil, HostMTUValid, StatusSuccess, "MTU is ok"},
		{"broken", func(h *HostFacts) { h.Connectivity.RemoteHosts[0].MtuReport[0].MtuSuccessful = false }, HostMTUValid, StatusFailure,
			"MTU is broken. Interface: eth0, remote IP address: 192.168.122.11"},
		{"broken outside machine network", func(h *HostFacts) {
			h.Connectivity.RemoteHosts[0].MtuReport[0] = &models.MtuReport{OutgoingNic: "eth0", RemoteIPAddress: "10.9.9.9"}
		}, HostMTUValid, StatusSuccess, "MTU is ok"},
		{"no report", func(h *HostFacts) { h.Connectivity = nil }, HostMTUValid, StatusPending, "Missing MTU report information"},
		{"synced", nil, HostNTPSynced, StatusSuccess, "Host NTP is synced"},
		{"unsynced", func(h *HostFacts) { h.NTP.NtpSources[0].SourceState = models.SourceStateUnreachable }, HostNTPSynced, StatusFailure,
			"Host couldn't synchronize with any NTP server"},
		{"in sync", nil, HostTimeSyncedWithService, StatusSuccess, "Host clock is synchronized with service"},
		{"host behind", func(h *HostFacts) { h.HostTime = testNow.Add(-30 * time.Minute).Unix() }, HostTimeSyncedWithService, StatusFailure,
			"Host clock is not synchronized, service time is ahead of host's at least for 20.0 minutes, please configure an NTP server via DHCP. Service time: 2026-11-21 06:00:00 +0000 UTC"},
		{"host ahead", func(h *HostFacts) { h.HostTime = testNow.Add(2 * time.Hour).Unix() }, HostTimeSyncedWithService, StatusFailure,
			"Host clock is not synchronized, host time is ahead of service at least for 60.0 minutes, please configure an NTP server via DHCP. Service time: 2026-11-21 06:00:00 +0000 UTC"},
		{"unknown", func(h *HostFacts) { h.HostTime = 0 }, HostTimeSyncedWithService, StatusPending,
			"Missing host time, can't determine synchronization between host and service"},
		{"present", nil, HostHasDefaultRoute, StatusSuccess, "Host has been configured with at least one default route."},
		{"absent", func(h *HostFacts) { h.Inventory.Routes = h.Inventory.Routes[1:] }, HostHasDefaultRoute, StatusFailure,
			"Host has not yet been configured with a default route."},
		{"separate", nil, HostNonOverlappingSubnets, StatusSuccess, "Host subnets are not overlapping"},
		{"same network twice", func(h *HostFacts) {
			h.Inventory.Interfaces = append(h.Inventory.Interfaces, &models.Interface{Name: "eth1", IPV4Addresses: []string{"192.168.122.77/24"}})
		}, HostNonOverlappingSubnets, StatusFailure, "Address networks are overlapping: Address network 192.168.122.0/24 appears on multiple interfaces [eth0, eth1]"},
		{"nested", func(h *HostFacts) {
			h.Inventory.Interfaces = append(h.Inventory.Interfaces, &models.Interface{Name: "eth1", IPV4Addresses: []string{"192.168.0.5/16"}})
		}, HostNonOverlappingSubnets, StatusFailure,
			"Address networks are overlapping: Address networks 192.168.122.0/24 in interface eth0 and 192.168.0.0/16 in interface eth1 overlap"},
	})
}

func TestHostDNSValidations(t *testing.T) {
	umn := func(h *HostFacts) { h.Cluster.UserManagedNetworking = true }
	resolve := func(name string, ips ...string) func(h *HostFacts) {
		return func(h *HostFacts) {
			umn(h)
			h.DomainResolutions.Resolutions = append(h.DomainResolutions.Resolutions,
				&models.DomainResolutionResponseDomain{DomainName: name, IPV4Addresses: ips})
		}
	}
	wildcard := func(h *HostFacts) {
		h.DomainResolutions.Resolutions = []*models.DomainResolutionResponseDomain{
			{DomainName: "validateNoWildcardDNS.demo.example.com."}, {DomainName: "validateNoWildcardDNS.demo.example.com"}}
	}
	runHostCases(t, []hostCase{
		{"managed", nil, HostAPIDomainResolved, StatusSuccess, "Domain name resolution for the api.demo.example.com domain was successful or not required"},
		{"umn unresolved", umn, HostAPIDomainResolved, StatusFailure,
			"Couldn't resolve domain name api.demo.example.com on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's API load balancer IP address"},
		{"umn resolved", resolve("api.demo.example.com", "192.168.122.5"), HostAPIDomainResolved, StatusSuccess,
			"Domain name resolution for the api.demo.example.com domain was successful or not required"},
		{"umn points at host", resolve("api-int.demo.example.com", "192.168.122.10"), HostAPIIntDomainResolved, StatusFailure,
			"Domain api-int.demo.example.com must not point at 192.168.122.10 as it is the API address of this host. This domain must instead point at the IP address of a load balancer when using user managed networking in a multi control-plane node cluster"},
		{"umn apps unresolved", umn, HostAppsDomainResolved, StatusFailure,
			"Couldn't resolve domain name *.apps.demo.example.com on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's application ingress IP address"},
		{"umn apps", resolve("console-openshift-console.apps.demo.example.com", "192.168.122.6"), HostAppsDomainResolved, StatusSuccess,
			"Domain name resolution for the *.apps.demo.example.com domain was successful or not required"},
		{"no wildcard", wildcard, HostDNSWildcardNotConfigured, StatusSuccess, "DNS wildcard check was successful"},
		{"wildcard", func(h *HostFacts) {
			wildcard(h)
			h.DomainResolutions.Resolutions[0].IPV4Addresses = []string{"1.2.3.4"}
		}, HostDNSWildcardNotConfigured, StatusFailure,
			"DNS wildcard configuration was detected for domain *.demo.example.com - the installation will not be able to complete while this record exists. Please remove it to proceed. The domain resolves to 1.2.3.4"},
		{"not resolved yet", func(h *HostFacts) { h.DomainResolutions = nil }, HostDNSWildcardNotConfigured, StatusPending,
			"DNS wildcard check cannot be performed yet because the host has not yet performed DNS resolution"},
	})
}

func TestUnboundHostHidesClusterValidations(t *testing.T) {
	h := goodHost()
	h.Cluster, h.Status, h.NTP = nil, models.HostStatusKnownUnbound, nil
	rs := ValidateHost(h, DefaultThresholds())
	for _, id := range []ID{HostMachineCIDRDefined, HostHostnameUnique, HostBelongsToMachineCIDR, HostBelongsToMajorityGroup,
		HostMTUValid, HostAPIDomainResolved, HostDNSWildcardNotConfigured, HostNonOverlappingSubnets, HostNTPSynced} {
		r, _ := rs.Get(id)
		if !r.Hidden || r.Status != StatusSuccess {
			t.Errorf("%s = %+v, want a hidden success", id, r)
		}
	}
	info := rs.Info()
	for _, r := range append(info[CategoryNetwork], info[CategoryHardware]...) {
		if r.ID == HostMachineCIDRDefined {
			t.Errorf("validations_info of an unbound host lists %s", r.ID)
		}
	}
	// an unbound host is held to the worker minimums
	h.Inventory.CPU.Count = 2
	r, _ := ValidateHost(h, DefaultThresholds()).Get(HostHasCPUCoresForRole)
	if r.Status != StatusSuccess || r.Message != "Sufficient CPU cores for role master" {
		t.Errorf("unbound 2-core host: %+v", r)
	}
}

func TestDomainsToResolve(t *testing.T) {
	got := DomainsToResolve("demo", "example.com")
	want := []string{"api.demo.example.com", "api-int.demo.example.com", "console-openshift-console.apps.demo.example.com",
		"validateNoWildcardDNS.demo.example.com", "validateNoWildcardDNS.demo.example.com."}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("[%d] = %q, want %q", i, got[i], want[i])
		}
	}
}
