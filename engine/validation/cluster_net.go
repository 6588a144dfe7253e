package validation

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

func (c ClusterFacts) hasIPv6Network() bool {
	for _, cidr := range c.allCIDRs() {
		if p, err := netip.ParsePrefix(cidr); err == nil && family(p.Addr()) == familyIPv6 {
			return true
		}
	}
	return false
}

func (c ClusterFacts) clusterCIDRs() []string {
	var out []string
	for _, n := range c.ClusterNetworks {
		out = append(out, n.CIDR)
	}
	return out
}

func (c ClusterFacts) allCIDRs() []string {
	return slices.Concat(c.clusterCIDRs(), c.ServiceNetworks, c.MachineNetworks)
}

func checkClusterMachineCIDR(c ClusterFacts, _ Thresholds) Result {
	const id = ClusterMachineCIDRDefined
	switch {
	case c.UserManagedNetworking && !c.singleNode():
		return result(id, StatusSuccess, "No Machine Network CIDR needed: User Managed Networking")
	case len(c.MachineNetworks) > 0:
		return result(id, StatusSuccess, "The Machine Network CIDR is defined.")
	case !c.hasInventories():
		return result(id, StatusPending, "Hosts have not been discovered yet")
	case c.singleNode():
		return result(id, StatusFailure, "The Machine Network CIDR is undefined; Setting Machine Network CIDR is required for single node cluster")
	}
	return result(id, StatusFailure, "The Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs.")
}

// multiError formats errors as hashicorp/go-multierror does, which is what
// upstream's messages look like.
func multiError(errs []string) string {
	noun := "errors"
	if len(errs) == 1 {
		noun = "error"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s occurred:\n", len(errs), noun)
	for _, e := range errs {
		fmt.Fprintf(&b, "\t* %s\n", e)
	}
	return b.String() + "\n"
}

// CalculateMachineCIDR returns the network of the first host interface
// that holds the VIP (upstream's calculated machine network CIDR).
func CalculateMachineCIDR(vip string, hosts []ClusterHost) (string, error) {
	ip, err := netip.ParseAddr(vip)
	if err != nil {
		return "", fmt.Errorf("Could not parse VIP ip %s", vip) //nolint:staticcheck // upstream's wording
	}
	for _, h := range hosts {
		if h.Inventory == nil {
			continue
		}
		for _, i := range h.Inventory.Interfaces {
			if i == nil {
				continue
			}
			for _, p := range interfaceAddrs(i) {
				if family(p.Addr()) == family(ip) && p.Masked().Contains(ip) {
					return p.Masked().String(), nil
				}
			}
		}
	}
	return "", fmt.Errorf("No suitable matching CIDR found for VIP %s", vip) //nolint:staticcheck // upstream's wording
}

func checkMachineCIDRCalc(c ClusterFacts, _ Thresholds) Result {
	const id = ClusterMachineCIDREqualsCalc
	switch {
	case c.UserManagedNetworking:
		return result(id, StatusSuccess, "The Cluster Machine CIDR is not required: User Managed Networking")
	case len(c.APIVips) == 0 && len(c.IngressVips) == 0:
		return result(id, StatusPending, "The Machine Network CIDR, API virtual IPs, or Ingress virtual IPs are undefined.")
	case !c.hasInventories():
		return result(id, StatusPending, "Hosts have not been discovered yet")
	}
	var errs []string
	for i, vip := range c.APIVips {
		calc, err := CalculateMachineCIDR(vip, c.Hosts)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if len(c.MachineNetworks) == 0 {
			continue
		}
		user := at(c.MachineNetworks, i)
		p, err := netip.ParsePrefix(user)
		if err != nil {
			errs = append(errs, fmt.Sprintf("failed to normalize user machine CIDR %s: %v", user, err))
			continue
		}
		if p.Masked().String() != calc {
			errs = append(errs, fmt.Sprintf("The Cluster Machine CIDR %s is different than the calculated CIDR %s.", user, calc))
		}
	}
	if len(errs) > 0 {
		return result(id, StatusFailure, "%s", multiError(errs))
	}
	return result(id, StatusSuccess, "The Cluster Machine CIDR is equivalent to the calculated CIDR.")
}

func at(list []string, i int) string {
	if i < len(list) {
		return list[i]
	}
	return ""
}

func checkAPIVipsDefined(c ClusterFacts, _ Thresholds) Result {
	return vipsDefined(c, ClusterAPIVipsDefined, "API", c.APIVips)
}

func checkIngressVipsDefined(c ClusterFacts, _ Thresholds) Result {
	return vipsDefined(c, ClusterIngressVipsDefined, "Ingress", c.IngressVips)
}

func checkAPIVipsValid(c ClusterFacts, _ Thresholds) Result {
	return vipsValid(c, ClusterAPIVipsValid, "API", c.APIVips)
}

func checkIngressVipsValid(c ClusterFacts, _ Thresholds) Result {
	return vipsValid(c, ClusterIngressVipsValid, "Ingress", c.IngressVips)
}

func vipsDefined(c ClusterFacts, id ID, name string, vips []string) Result {
	switch {
	case c.UserManagedNetworking:
		return result(id, StatusSuccess, "%s virtual IPs are not required: User Managed Networking", name)
	case c.ControlPlaneCount == 1:
		return result(id, StatusSuccess, "%s virtual IPs are not required: SNO", name)
	case len(vips) > 0:
		return result(id, StatusSuccess, "%s virtual IPs are defined.", name)
	}
	return result(id, StatusFailure, "%s virtual IPs are undefined and must be provided.", name)
}

func vipsValid(c ClusterFacts, id ID, name string, vips []string) Result {
	switch {
	case c.UserManagedNetworking:
		return result(id, StatusSuccess, "%s virtual IPs are not required: User Managed Networking", name)
	case c.ControlPlaneCount == 1:
		return result(id, StatusSuccess, "%s virtual IPs are not required: SNO", name)
	case len(vips) == 0:
		return result(id, StatusPending, "%s virtual IPs are undefined.", name)
	case !c.hasInventories() || !checkClusterMachineCIDR(c, Thresholds{}).Passed():
		return result(id, StatusPending, "Hosts have not been discovered yet")
	}
	label := strings.ToLower(name) + " vips"
	var errs []string
	for i, vip := range vips {
		if msg := vipProblem(c, label, vip, at(c.MachineNetworks, i)); msg != "" {
			errs = append(errs, msg)
		}
	}
	if len(errs) > 0 {
		return result(id, StatusFailure, "%s", strings.Join(errs, ";"))
	}
	return result(id, StatusSuccess, "%s %s belongs to the Machine CIDR and is not in use.", label, strings.Join(vips, ", "))
}

// vipProblem says what is wrong with a VIP: outside its machine network,
// the network's broadcast address, or an address a host already uses.
func vipProblem(c ClusterFacts, label, vip, cidr string) string {
	if cidr == "" {
		return fmt.Sprintf("%s <%s> cannot be set if Machine Network CIDR is empty", label, vip)
	}
	ip, err1 := netip.ParseAddr(vip)
	p, err2 := netip.ParsePrefix(cidr)
	if err1 != nil || err2 != nil || !p.Masked().Contains(ip) {
		return fmt.Sprintf("%s <%s> does not belong to machine-network-cidr <%s>", label, vip, cidr)
	}
	if ip.Is4() && ip == broadcast(p.Masked()) {
		return fmt.Sprintf("%s <%s> is the broadcast address of machine-network-cidr <%s>", label, vip, cidr)
	}
	for _, h := range c.Hosts {
		if slices.Contains(hostAddrs(h.Inventory), ip) {
			return fmt.Sprintf("%s <%s> is already in use in cidr %s", label, vip, cidr)
		}
	}
	return ""
}

func broadcast(p netip.Prefix) netip.Addr {
	b := p.Addr().As4()
	host := 32 - p.Bits()
	for i := 0; i < host; i++ {
		b[3-i/8] |= 1 << (i % 8)
	}
	return netip.AddrFrom4(b)
}

func checkClusterCIDR(c ClusterFacts, _ Thresholds) Result {
	if len(c.ClusterNetworks) > 0 {
		return result(ClusterClusterCIDRDefined, StatusSuccess, "The Cluster Network CIDR is defined.")
	}
	return result(ClusterClusterCIDRDefined, StatusFailure, "The Cluster Network CIDR is undefined.")
}

func checkServiceCIDR(c ClusterFacts, _ Thresholds) Result {
	if len(c.ServiceNetworks) > 0 {
		return result(ClusterServiceCIDRDefined, StatusSuccess, "The Service Network CIDR is defined.")
	}
	return result(ClusterServiceCIDRDefined, StatusFailure, "The Service Network CIDR is undefined.")
}

// cidrsDefined reports whether the networks the cluster needs are set.
func (c ClusterFacts) cidrsDefined() bool {
	return len(c.ClusterNetworks) > 0 && len(c.ServiceNetworks) > 0 &&
		(!c.machineNetworkRequired() || checkClusterMachineCIDR(c, Thresholds{}).Passed())
}
