package validation

import (
	"testing"

	"github.com/rackboot/rackboot/engine/models"
)

func goodCluster() ClusterFacts {
	hosts := []ClusterHost{}
	for i, ip := range []string{"192.168.122.10", "192.168.122.11", "192.168.122.12"} {
		hosts = append(hosts, ClusterHost{
			ID: string(rune('a' + i)), Status: models.HostStatusKnown, Role: models.HostRoleMaster,
			Inventory: testInventory("master", ip), HostTime: testNow.Unix() + int64(i*30),
		})
	}
	return ClusterFacts{
		Name: "demo", BaseDomain: "example.com", PullSecretSet: true, ControlPlaneCount: 3,
		NetworkType:     NetworkTypeOVNKubernetes,
		MachineNetworks: []string{"192.168.122.0/24"},
		ClusterNetworks: []ClusterNetwork{{CIDR: "10.128.0.0/14", HostPrefix: 23}},
		ServiceNetworks: []string{"172.30.0.0/16"},
		APIVips:         []string{"192.168.122.100"},
		IngressVips:     []string{"192.168.122.101"},
		Hosts:           hosts,
	}
}

type clusterCase struct {
	name   string
	change func(c *ClusterFacts)
	id     ID
	status Status
	msg    string
}

func TestClusterValidations(t *testing.T) {
	sno := func(c *ClusterFacts) {
		c.ControlPlaneCount, c.APIVips, c.IngressVips = 1, nil, nil
		c.Hosts = c.Hosts[:1]
	}
	cases := []clusterCase{
		{"defined", nil, ClusterMachineCIDRDefined, StatusSuccess, "The Machine Network CIDR is defined."},
		{"undefined", func(c *ClusterFacts) { c.MachineNetworks = nil }, ClusterMachineCIDRDefined, StatusFailure,
			"The Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs."},
		{"undiscovered", func(c *ClusterFacts) { c.MachineNetworks, c.Hosts = nil, nil }, ClusterMachineCIDRDefined, StatusPending, "Hosts have not been discovered yet"},
		{"sno undefined", func(c *ClusterFacts) { sno(c); c.MachineNetworks = nil }, ClusterMachineCIDRDefined, StatusFailure,
			"The Machine Network CIDR is undefined; Setting Machine Network CIDR is required for single node cluster"},
		{"equal", nil, ClusterMachineCIDREqualsCalc, StatusSuccess, "The Cluster Machine CIDR is equivalent to the calculated CIDR."},
		{"different", func(c *ClusterFacts) {
			c.MachineNetworks = []string{"192.168.0.0/16"}
			c.APIVips = []string{"192.168.122.100"}
		},
			ClusterMachineCIDREqualsCalc, StatusFailure,
			"1 error occurred:\n\t* The Cluster Machine CIDR 192.168.0.0/16 is different than the calculated CIDR 192.168.122.0/24.\n\n"},
		{"no host holds vip", func(c *ClusterFacts) { c.APIVips = []string{"10.1.1.1"} }, ClusterMachineCIDREqualsCalc, StatusFailure,
			"1 error occurred:\n\t* No suitable matching CIDR found for VIP 10.1.1.1\n\n"},
		{"defined", nil, ClusterAPIVipsDefined, StatusSuccess, "API virtual IPs are defined."},
		{"missing", func(c *ClusterFacts) { c.APIVips = nil }, ClusterAPIVipsDefined, StatusFailure, "API virtual IPs are undefined and must be provided."},
		{"sno", sno, ClusterAPIVipsDefined, StatusSuccess, "API virtual IPs are not required: SNO"},
		{"valid", nil, ClusterAPIVipsValid, StatusSuccess, "api vips 192.168.122.100 belongs to the Machine CIDR and is not in use."},
		{"outside", func(c *ClusterFacts) { c.APIVips = []string{"10.0.0.1"} }, ClusterAPIVipsValid, StatusFailure,
			"api vips <10.0.0.1> does not belong to machine-network-cidr <192.168.122.0/24>"},
		{"broadcast", func(c *ClusterFacts) { c.APIVips = []string{"192.168.122.255"} }, ClusterAPIVipsValid, StatusFailure,
			"api vips <192.168.122.255> is the broadcast address of machine-network-cidr <192.168.122.0/24>"},
		{"in use", func(c *ClusterFacts) { c.IngressVips = []string{"192.168.122.11"} }, ClusterIngressVipsValid, StatusFailure,
			"ingress vips <192.168.122.11> is already in use in cidr 192.168.122.0/24"},
		{"missing", func(c *ClusterFacts) { c.IngressVips = nil }, ClusterIngressVipsValid, StatusPending, "Ingress virtual IPs are undefined."},
		{"umn", func(c *ClusterFacts) { c.UserManagedNetworking = true }, ClusterIngressVipsDefined, StatusSuccess,
			"Ingress virtual IPs are not required: User Managed Networking"},
		{"ovn", nil, ClusterNetworkTypeValid, StatusSuccess, "The cluster has a valid network type"},
		{"bogus", func(c *ClusterFacts) { c.NetworkType = "Flannel" }, ClusterNetworkTypeValid, StatusFailure,
			"The network type is not valid; the valid network types are OpenShiftSDN, OVNKubernetes, Cilium, Calico, CiscoACI, or None"},
		{"sdn ipv6", func(c *ClusterFacts) {
			c.NetworkType, c.ServiceNetworks = NetworkTypeOpenShiftSDN, []string{"fd02::/112"}
		},
			ClusterNetworkTypeValid, StatusFailure, "The cluster is configured with IPv6 which is not supported by OpenShiftSDN; use OVNKubernetes instead"},
		{"ready", nil, ClusterAllHostsReady, StatusSuccess, "All hosts in the cluster are ready to install."},
		{"one insufficient", func(c *ClusterFacts) { c.Hosts[1].Status = models.HostStatusInsufficient }, ClusterAllHostsReady, StatusFailure,
			"The cluster has hosts that are not ready to install."},
		{"three masters", nil, ClusterSufficientMastersCount, StatusSuccess, "The cluster has the exact amount of dedicated control plane nodes."},
		{"two masters", func(c *ClusterFacts) { c.Hosts[2].Role = models.HostRoleWorker }, ClusterSufficientMastersCount, StatusFailure,
			"The cluster must have exactly 3 dedicated control plane nodes. Add or remove hosts, or change their roles configurations to meet the requirement."},
		{"auto-assign fills", func(c *ClusterFacts) { c.Hosts[2].Role = models.HostRoleAutoAssign }, ClusterSufficientMastersCount, StatusSuccess,
			"The cluster has the exact amount of dedicated control plane nodes."},
		{"auto-assign too small", func(c *ClusterFacts) { c.Hosts[2].Role = ""; c.Hosts[2].Inventory.CPU.Count = 2 }, ClusterSufficientMastersCount,
			StatusFailure, "The cluster must have exactly 3 dedicated control plane nodes. Add or remove hosts, or change their roles configurations to meet the requirement."},
		{"sno with worker", func(c *ClusterFacts) {
			sno(c)
			c.Hosts = append(c.Hosts, ClusterHost{ID: "w", Role: models.HostRoleWorker})
		},
			ClusterSufficientMastersCount, StatusFailure, "Single-node clusters must have a single control plane node and no workers."},
		{"set", nil, ClusterDNSDomainDefined, StatusSuccess, "The base domain is defined."},
		{"unset", func(c *ClusterFacts) { c.BaseDomain = "" }, ClusterDNSDomainDefined, StatusFailure, "The base domain is undefined and must be provided."},
		{"set", nil, ClusterPullSecretSet, StatusSuccess, "The pull secret is set."},
		{"unset", func(c *ClusterFacts) { c.PullSecretSet = false }, ClusterPullSecretSet, StatusFailure, "The pull secret is not set."},
		{"set", nil, ClusterClusterCIDRDefined, StatusSuccess, "The Cluster Network CIDR is defined."},
		{"unset", func(c *ClusterFacts) { c.ClusterNetworks = nil }, ClusterClusterCIDRDefined, StatusFailure, "The Cluster Network CIDR is undefined."},
		{"set", nil, ClusterServiceCIDRDefined, StatusSuccess, "The Service Network CIDR is defined."},
		{"unset", func(c *ClusterFacts) { c.ServiceNetworks = nil }, ClusterServiceCIDRDefined, StatusFailure, "The Service Network CIDR is undefined."},
		{"apart", nil, ClusterNoCIDRsOverlapping, StatusSuccess, "No CIDRS are overlapping."},
		{"service in machine", func(c *ClusterFacts) { c.ServiceNetworks = []string{"192.168.0.0/16"} }, ClusterNoCIDRsOverlapping, StatusFailure,
			"CIDRS Overlapping: MachineNetworkCIDR and ServiceNetworkCIDR: CIDRS 192.168.122.0/24 and 192.168.0.0/16 overlap."},
		{"service in cluster", func(c *ClusterFacts) { c.ServiceNetworks = []string{"10.130.0.0/16"} }, ClusterNoCIDRsOverlapping, StatusFailure,
			"CIDRS Overlapping: ServiceNetworkCidr and ClusterNetworkCidr: CIDRS 10.130.0.0/16 and 10.128.0.0/14 overlap."},
		{"missing", func(c *ClusterFacts) { c.ServiceNetworks = nil }, ClusterNoCIDRsOverlapping, StatusPending,
			"At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined."},
		{"valid", nil, ClusterNetworkPrefixValid, StatusSuccess, "The Cluster Network prefix is valid."},
		{"zero prefix", func(c *ClusterFacts) { c.ClusterNetworks[0].HostPrefix = 0 }, ClusterNetworkPrefixValid, StatusFailure,
			"Invalid Cluster Network prefix: Host prefix, now 0, must be a positive integer."},
		{"prefix too long", func(c *ClusterFacts) { c.ClusterNetworks[0].HostPrefix = 28 }, ClusterNetworkPrefixValid, StatusFailure,
			"Host prefix, now 28, must be less than or equal to 25 to allow at least 128 addresses"},
		{"too few slices", func(c *ClusterFacts) { c.ClusterNetworks[0] = ClusterNetwork{CIDR: "10.128.0.0/23", HostPrefix: 23} },
			ClusterNetworkPrefixValid, StatusFailure,
			"Cluster network CIDR prefix 23 does not contain enough addresses for 3 hosts each one with 23 prefix (512 addresses)"},
		{"clocks close", nil, ClusterNTPServerConfigured, StatusSuccess, "No ntp problems found"},
		{"clocks apart", func(c *ClusterFacts) { c.Hosts[2].HostTime += 600 }, ClusterNTPServerConfigured, StatusFailure,
			"Hosts' clocks are not synchronized (there's more than a 4 minutes gap between clocks), please configure an NTP server via DHCP or set clocks manually."},
		{"same", nil, ClusterNetworksSameAddressFamilies, StatusSuccess, "Same address families for all networks."},
		{"v6 service", func(c *ClusterFacts) { c.ServiceNetworks = []string{"fd02::/112"} }, ClusterNetworksSameAddressFamilies, StatusFailure,
			"Address families of networks (ServiceNetworks, ClusterNetworks) are not the same."},
		{"v6 machine", func(c *ClusterFacts) { c.MachineNetworks = []string{"fd00::/64"} }, ClusterNetworksSameAddressFamilies, StatusFailure,
			"Address families of networks (MachineNetworks, ServiceNetworks, ClusterNetworks) are not the same."},
	}
	for _, tc := range cases {
		t.Run(string(tc.id)+"/"+tc.name, func(t *testing.T) {
			c := goodCluster()
			if tc.change != nil {
				tc.change(&c)
			}
			r, ok := ValidateCluster(c, DefaultThresholds()).Get(tc.id)
			if !ok {
				t.Fatalf("no result for %s", tc.id)
			}
			if r.Status != tc.status || r.Message != tc.msg {
				t.Errorf("%s = %s %q, want %s %q", tc.id, r.Status, r.Message, tc.status, tc.msg)
			}
		})
	}
}

func TestClusterStatus(t *testing.T) {
	good := ValidateCluster(goodCluster(), DefaultThresholds())
	cases := []struct {
		name   string
		change func(c *ClusterFacts)
		prev   string
		status string
		info   string
	}{
		{"ready", nil, ClusterStatusInsufficient, ClusterStatusReady, ClusterStatusInfoReady},
		{"no pull secret", func(c *ClusterFacts) { c.PullSecretSet = false }, ClusterStatusReady, ClusterStatusPendingForInput, ClusterStatusInfoPendingForInput},
		{"no api vip", func(c *ClusterFacts) { c.APIVips = nil }, "", ClusterStatusPendingForInput, ClusterStatusInfoPendingForInput},
		{"host not ready", func(c *ClusterFacts) { c.Hosts[0].Status = models.HostStatusDiscovering }, ClusterStatusReady,
			ClusterStatusInsufficient, ClusterStatusInfoInsufficient},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := goodCluster()
			if tc.change != nil {
				tc.change(&c)
			}
			st, info, ok := ClusterStatus(tc.prev, ValidateCluster(c, DefaultThresholds()))
			if !ok || st != tc.status || info != tc.info {
				t.Errorf("ClusterStatus = %q %q %v, want %q %q", st, info, ok, tc.status, tc.info)
			}
		})
	}
	if st, _, ok := ClusterStatus("installing", good); ok || st != "installing" {
		t.Errorf("installing cluster moved to %q", st)
	}
}
