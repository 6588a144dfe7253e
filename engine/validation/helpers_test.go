package validation

import (
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

var testNow = time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)

const gb = int64(1e9)

func testInventory(hostname, ip string) *models.Inventory {
	return &models.Inventory{
		Hostname: hostname,
		CPU:      &models.CPU{Architecture: "x86_64", Count: 8},
		Memory:   &models.Memory{PhysicalBytes: 32 * gib, UsableBytes: 31 * gib, PhysicalBytesMethod: models.MemoryMethodDmidecode},
		Disks: []*models.Disk{{
			Name: "sda", Path: "/dev/sda", ID: "/dev/sda", DriveType: models.DriveTypeSSD, SizeBytes: 200 * gb, Bootable: true,
			InstallationEligibility: models.DiskInstallationEligibility{Eligible: true},
		}},
		Interfaces: []*models.Interface{{
			Name: "eth0", MacAddress: "52:54:00:00:00:01", IPV4Addresses: []string{ip + "/24"}, Mtu: 1500, HasCarrier: true,
		}},
		Routes: []*models.Route{
			{Destination: "0.0.0.0", Gateway: "192.168.122.1", Interface: "eth0", Family: models.FamilyIPv4},
			{Destination: "192.168.122.0", Gateway: "0.0.0.0", Interface: "eth0", Family: models.FamilyIPv4},
		},
		SystemVendor: &models.SystemVendor{Manufacturer: "QEMU", ProductName: "Standard PC (Q35 + ICH9, 2009)", Virtual: true},
	}
}

// goodHost is a bound master that passes every validation.
func goodHost() HostFacts {
	return HostFacts{
		ID:          "11111111-1111-1111-1111-111111111111",
		Role:        models.HostRoleMaster,
		Status:      models.HostStatusKnown,
		Inventory:   testInventory("master-0", "192.168.122.10"),
		CheckedInAt: testNow.Add(-30 * time.Second),
		Now:         testNow,
		HostTime:    testNow.Unix(),
		NTP:         &models.NtpSynchronizationResponse{NtpSources: []*models.NtpSource{{SourceName: "pool", SourceState: models.SourceStateSynced}}},
		Connectivity: &models.ConnectivityReport{RemoteHosts: []*models.ConnectivityRemoteHost{{
			HostID:    "22222222-2222-2222-2222-222222222222",
			MtuReport: []*models.MtuReport{{OutgoingNic: "eth0", RemoteIPAddress: "192.168.122.11", MtuSuccessful: true}},
		}}},
		DomainResolutions: &models.DomainResolutionResponse{Resolutions: []*models.DomainResolutionResponseDomain{
			{DomainName: "validateNoWildcardDNS.demo.example.com."}, {DomainName: "validateNoWildcardDNS.demo.example.com"}}},
		Cluster: &HostCluster{
			Name: "demo", BaseDomain: "example.com",
			MachineNetworks: []string{"192.168.122.0/24"},
			ClusterNetworks: []string{"10.128.0.0/14"},
			ServiceNetworks: []string{"172.30.0.0/16"},
			HostCount:       3,
			OtherHostnames:  []string{"master-1", "master-2"},
			MajorityGroups: map[string][]string{"192.168.122.0/24": {
				"11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222", "33333333-3333-3333-3333-333333333333"}},
		},
	}
}
