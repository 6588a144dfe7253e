package output_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
	"github.com/rackboot/rackboot/engine/models"
)

func TestDescribeHostGolden(t *testing.T) {
	inv := models.Inventory{
		Hostname:     "node-a",
		SystemVendor: &models.SystemVendor{Manufacturer: "QEMU", ProductName: "Standard PC (Q35 + ICH9, 2009)", SerialNumber: "S123", Virtual: true},
		Boot:         &models.Boot{CurrentBootMode: models.BootModeUEFI},
		CPU:          &models.CPU{Count: 2, ModelName: "QEMU Virtual CPU", Architecture: "x86_64"},
		Memory:       &models.Memory{PhysicalBytes: 4 << 30, UsableBytes: 3900 << 20},
		Disks: []*models.Disk{
			{ID: "/dev/disk/by-path/pci-0000:00:05.0", Name: "vda", DriveType: models.DriveTypeHDD, SizeBytes: 20 << 30,
				ByPath: "/dev/disk/by-path/pci-0000:00:05.0", InstallationEligibility: models.DiskInstallationEligibility{Eligible: true}},
			{ID: "/dev/sr0", Name: "sr0", DriveType: models.DriveTypeODD, SizeBytes: 1 << 30, Removable: true,
				InstallationEligibility: models.DiskInstallationEligibility{NotEligibleReasons: []string{"Disk is removable"}}},
		},
		Interfaces: []*models.Interface{{Name: "ens3", MacAddress: "52:54:00:00:00:01", IPV4Addresses: []string{"10.0.0.11/24"},
			SpeedMbps: 1000, Mtu: 1500, HasCarrier: true}},
	}
	b, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	vi := `{"hardware":[{"id":"has-min-cpu-cores","status":"success","message":"Sufficient CPU cores"},` +
		`{"id":"has-cpu-cores-for-role","status":"failure","message":"Require at least 4 CPU cores for master role, found only 2"}],` +
		`"network":[{"id":"connected","status":"success","message":"Host is connected"}]}`
	h := &client.Host{Approved: true, Host: models.Host{ID: "aaaaaaaa-0000-4000-8000-000000000001",
		InfraEnvID: "11111111-2222-3333-4444-555555555555", Status: models.HostStatusInsufficientUnbound,
		StatusInfo: "Host does not meet the minimum hardware requirements", Role: models.HostRoleAutoAssign,
		Inventory: string(b), InstallationDiskID: "/dev/disk/by-path/pci-0000:00:05.0",
		InstallationDiskPath: "/dev/vda", DiscoveryAgentVersion: "v1", ValidationsInfo: string(vi)}}
	var out bytes.Buffer
	if err := output.DescribeHost(&out, h); err != nil {
		t.Fatal(err)
	}
	golden(t, "describe-host.txt", out.Bytes())

	out.Reset()
	if err := output.DescribeHost(&out, &client.Host{Host: models.Host{ID: "x", Status: "discovering"}}); err != nil {
		t.Fatal(err)
	}
	golden(t, "describe-host-new.txt", out.Bytes())
}

func TestDescribeClusterGolden(t *testing.T) {
	c := &client.Cluster{ID: "cccccccc-0000-4000-8000-000000000001", Name: "prod", OpenshiftVersion: "4.16",
		BaseDNSDomain: "example.com", ControlPlaneCount: 3, CPUArchitecture: "x86_64", Status: "insufficient",
		StatusInfo: "Cluster is not ready for install", PullSecretSet: true,
		APIVips: []client.VIP{{IP: "192.168.111.5"}}, IngressVips: []client.VIP{{IP: "192.168.111.4"}},
		MachineNetworks: []client.Network{{CIDR: "192.168.111.0/24"}}, ServiceNetworks: []client.Network{{CIDR: "172.30.0.0/16"}},
		Hosts:           hosts()[:2],
		ValidationsInfo: `{"hosts-data":[{"id":"sufficient-masters-count","status":"failure","message":"The cluster must have exactly 3 dedicated control plane nodes."}]}`}
	var out bytes.Buffer
	if err := output.DescribeCluster(&out, c); err != nil {
		t.Fatal(err)
	}
	golden(t, "describe-cluster.txt", out.Bytes())
}
