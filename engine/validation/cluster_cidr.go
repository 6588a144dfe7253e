package validation

import (
	"fmt"
	"net/netip"
	"slices"
)

func checkCIDRsOverlapping(c ClusterFacts, _ Thresholds) Result {
	const id = ClusterNoCIDRsOverlapping
	if !c.cidrsDefined() {
		if c.UserManagedNetworking {
			return result(id, StatusPending, "At least one of the CIDRs (Cluster Network, Service Network) is undefined.")
		}
		return result(id, StatusPending, "At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.")
	}
	if len(c.ClusterNetworks) != len(c.ServiceNetworks) {
		return result(id, StatusError, "A mismatch between the number of Cluster and Service networks")
	}
	machine := ""
	for i, cn := range c.ClusterNetworks {
		if i < len(c.MachineNetworks) {
			machine = c.MachineNetworks[i]
		}
		if msg := cidrsOverlap(machine, cn.CIDR, c.ServiceNetworks[i], c.machineNetworkRequired()); msg != "" {
			return result(id, StatusFailure, "CIDRS Overlapping: %s.", msg)
		}
	}
	return result(id, StatusSuccess, "No CIDRS are overlapping.")
}

// cidrsOverlap names the first pair of the three networks that overlap.
func cidrsOverlap(machine, cluster, service string, machineRequired bool) string {
	type pair struct{ label, a, b string }
	var pairs []pair
	if machineRequired {
		pairs = append(pairs, pair{"MachineNetworkCIDR and ServiceNetworkCIDR", machine, service},
			pair{"MachineNetworkCIDR and ClusterNetworkCidr", machine, cluster})
	}
	pairs = append(pairs, pair{"ServiceNetworkCidr and ClusterNetworkCidr", service, cluster})
	for _, p := range pairs {
		if p.a == "" || p.b == "" {
			continue
		}
		a, errA := netip.ParsePrefix(p.a)
		b, errB := netip.ParsePrefix(p.b)
		switch {
		case errA != nil:
			return fmt.Sprintf("%s: Failed to parse CIDR '%s'", p.label, p.a)
		case errB != nil:
			return fmt.Sprintf("%s: Failed to parse CIDR '%s'", p.label, p.b)
		case a.Masked().Overlaps(b.Masked()):
			return fmt.Sprintf("%s: CIDRS %s and %s overlap", p.label, p.a, p.b)
		}
	}
	return ""
}

// minMaskDelta: a node's pod network must hold at least 2^7 addresses.
const minMaskDelta = 7

func checkNetworkPrefix(c ClusterFacts, _ Thresholds) Result {
	const id = ClusterNetworkPrefixValid
	if len(c.ClusterNetworks) == 0 {
		return result(id, StatusPending, "The Cluster Network CIDR is undefined.")
	}
	skipHostPrefix := !slices.Contains([]string{NetworkTypeOVNKubernetes, NetworkTypeOpenShiftSDN}, c.networkType())
	for _, cn := range c.ClusterNetworks {
		hostPrefix := cn.HostPrefix
		if !skipHostPrefix && hostPrefix < 1 {
			return result(id, StatusFailure, "Invalid Cluster Network prefix: Host prefix, now %d, must be a positive integer.", hostPrefix)
		}
		if skipHostPrefix {
			hostPrefix = 23
			if p, err := netip.ParsePrefix(cn.CIDR); err == nil && !p.Addr().Is4() {
				hostPrefix = 64
			}
		}
		if msg := clusterCIDRSizeProblem(hostPrefix, cn.CIDR, len(c.Hosts)); msg != "" {
			return result(id, StatusFailure, "%s", msg)
		}
	}
	return result(id, StatusSuccess, "The Cluster Network prefix is valid.")
}

// clusterCIDRSizeProblem checks that the pod network holds a slice of the
// host prefix for every host (at least 4 unless single-node).
func clusterCIDRSizeProblem(hostPrefix int, cidr string, hosts int) string {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return fmt.Sprintf("Failed to parse CIDR '%s'", cidr)
	}
	bits := p.Addr().BitLen()
	if hostPrefix > bits-minMaskDelta {
		return fmt.Sprintf("Host prefix, now %d, must be less than or equal to %d to allow at least 128 addresses", hostPrefix, bits-minMaskDelta)
	}
	want := uint64(max(4, hosts))
	if hosts == 1 {
		want = 1
	}
	possible := uint64(1) << min(63, max(hostPrefix-p.Bits(), 0))
	if want > possible {
		return fmt.Sprintf("Cluster network CIDR prefix %d does not contain enough addresses for %d hosts each one with %d prefix (%d addresses)",
			p.Bits(), hosts, hostPrefix, uint64(1)<<min(63, bits-hostPrefix))
	}
	return ""
}

// families returns the distinct address families of the CIDRs, in order
// of appearance; ok is false when one does not parse.
func families(cidrs []string) (fams []string, ok bool) {
	for _, s := range cidrs {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, false
		}
		if f := family(p.Addr()); len(fams) == 0 || fams[len(fams)-1] != f {
			fams = append(fams, f)
		}
	}
	return fams, true
}

func checkSameFamilies(c ClusterFacts, _ Thresholds) Result {
	const id = ClusterNetworksSameAddressFamilies
	if !c.cidrsDefined() {
		if !c.machineNetworkRequired() {
			return result(id, StatusPending, "At least one of the CIDRs (Cluster Network, Service Network) is undefined.")
		}
		return result(id, StatusPending, "At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.")
	}
	service, ok1 := families(c.ServiceNetworks)
	cluster, ok2 := families(c.clusterCIDRs())
	if !ok1 || !ok2 {
		return result(id, StatusError, "Bad CIDR(s) appears in one of the networks")
	}
	if !slices.Equal(service, cluster) {
		return result(id, StatusFailure, "Address families of networks (ServiceNetworks, ClusterNetworks) are not the same.")
	}
	if c.machineNetworkRequired() {
		machine, ok := families(c.MachineNetworks)
		if !ok {
			return result(id, StatusError, "Error getting machine address families for cluster %s", c.Name)
		}
		if !slices.Equal(service, machine) {
			return result(id, StatusFailure, "Address families of networks (MachineNetworks, ServiceNetworks, ClusterNetworks) are not the same.")
		}
	}
	return result(id, StatusSuccess, "Same address families for all networks.")
}
