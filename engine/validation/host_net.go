package validation

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"

	"github.com/rackboot/rackboot/engine/models"
)

func checkHostMachineCIDR(h HostFacts, _ Thresholds) Result {
	switch {
	case h.Cluster == nil:
		return hidden(HostMachineCIDRDefined, "")
	case h.Cluster.UserManagedNetworking:
		return result(HostMachineCIDRDefined, StatusSuccess, "No Machine Network CIDR needed: User Managed Networking")
	case len(h.Cluster.MachineNetworks) > 0:
		return result(HostMachineCIDRDefined, StatusSuccess, "Machine Network CIDR is defined")
	}
	return result(HostMachineCIDRDefined, StatusFailure,
		"Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs")
}

// interfaceAddrs returns every address of an interface, IPv4 then IPv6.
func interfaceAddrs(i *models.Interface) []netip.Prefix {
	var out []netip.Prefix
	for _, s := range append(slices.Clone(i.IPV4Addresses), i.IPV6Addresses...) {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// hostAddrs returns every address of the inventory's interfaces.
func hostAddrs(inv *models.Inventory) []netip.Addr {
	var out []netip.Addr
	if inv == nil {
		return nil
	}
	for _, i := range inv.Interfaces {
		if i == nil {
			continue
		}
		for _, p := range interfaceAddrs(i) {
			out = append(out, p.Addr())
		}
	}
	return out
}

// inNetwork reports whether any of addrs lies in cidr.
func inNetwork(addrs []netip.Addr, cidr string) bool {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(addrs, p.Contains)
}

func checkBelongsToMachineCIDR(h HostFacts, _ Thresholds) Result {
	const id = HostBelongsToMachineCIDR
	switch {
	case h.Cluster == nil:
		return hidden(id, "")
	case h.Cluster.UserManagedNetworking && !h.Cluster.SingleNode:
		return result(id, StatusSuccess, "No machine network CIDR validation needed: User Managed Networking")
	case h.Inventory == nil || len(h.Cluster.MachineNetworks) == 0:
		return result(id, StatusPending, "Missing inventory or machine network CIDR")
	}
	addrs := hostAddrs(h.Inventory)
	for _, cidr := range h.Cluster.MachineNetworks {
		if !inNetwork(addrs, cidr) {
			return result(id, StatusFailure,
				"Host does not belong to machine network CIDRs. Verify that the host belongs to every CIDR listed under machine networks")
		}
	}
	return result(id, StatusSuccess, "Host belongs to all machine network CIDRs")
}

func checkMajorityGroup(h HostFacts, _ Thresholds) Result {
	const id = HostBelongsToMajorityGroup
	switch {
	case h.Cluster == nil:
		return hidden(id, "")
	case h.Cluster.SingleNode:
		return result(id, StatusSuccess, "Host has connectivity to the majority of hosts in the cluster")
	case h.Cluster.Day2:
		return result(id, StatusSuccess, "Day2 host is not required to be connected to other hosts in the cluster")
	case h.Cluster.MajorityGroups == nil:
		return result(id, StatusPending, "Machine Network CIDR or Connectivity Majority Groups missing")
	}
	st := majorityStatus(h)
	if st == StatusFailure && h.Cluster.HostCount < 3 {
		return result(id, StatusPending, "Not enough hosts in cluster to calculate connectivity groups")
	}
	switch st {
	case StatusSuccess:
		return result(id, st, "Host has connectivity to the majority of hosts in the cluster")
	case StatusFailure:
		return result(id, st, "No connectivity to the majority of hosts in the cluster")
	}
	return result(id, st, "Not enough information to calculate host majority groups")
}

// majorityStatus: with managed networking the host must be in the group of
// every machine network; with user-managed networking in the group of
// every address family the cluster uses.
func majorityStatus(h HostFacts) Status {
	keys := h.Cluster.MachineNetworks
	if h.Cluster.UserManagedNetworking {
		keys = clusterFamilies(h.Cluster)
	} else if len(keys) == 0 {
		return StatusPending
	}
	for _, k := range keys {
		if !slices.Contains(h.Cluster.MajorityGroups[k], h.ID) {
			return StatusFailure
		}
	}
	return StatusSuccess
}

// clusterFamilies returns "IPv4" and/or "IPv6" after the cluster's service
// and cluster networks (IPv4 when none is set).
func clusterFamilies(c *HostCluster) []string {
	var fams []string
	for _, cidr := range append(slices.Clone(c.ServiceNetworks), c.ClusterNetworks...) {
		if p, err := netip.ParsePrefix(cidr); err == nil {
			f := family(p.Addr())
			if !slices.Contains(fams, f) {
				fams = append(fams, f)
			}
		}
	}
	slices.Sort(fams)
	if len(fams) == 0 {
		return []string{familyIPv4}
	}
	return fams
}

const (
	familyIPv4 = "IPv4"
	familyIPv6 = "IPv6"
)

func family(a netip.Addr) string {
	if a.Unmap().Is4() {
		return familyIPv4
	}
	return familyIPv6
}

func checkMTU(h HostFacts, _ Thresholds) Result {
	const id = HostMTUValid
	switch {
	case h.Cluster == nil:
		return hidden(id, "Host is not bound to a cluster")
	case h.Inventory == nil:
		return result(id, StatusPending, "Missing host inventory")
	case h.Cluster.SingleNode:
		return hidden(id, "The validation is not applicable to SNO")
	case h.Connectivity == nil:
		return result(id, StatusPending, "Missing MTU report information")
	}
	for _, r := range h.Connectivity.RemoteHosts {
		if r == nil {
			continue
		}
		for _, m := range r.MtuReport {
			if m != nil && !m.MtuSuccessful && mtuReportCounts(h, m) {
				return result(id, StatusFailure, "MTU is broken. Interface: %s, remote IP address: %s", m.OutgoingNic, m.RemoteIPAddress)
			}
		}
	}
	return result(id, StatusSuccess, "MTU is ok")
}

// mtuReportCounts: with user-managed networking every report counts; else
// only those between addresses of the machine networks.
func mtuReportCounts(h HostFacts, m *models.MtuReport) bool {
	if h.Cluster.UserManagedNetworking {
		return true
	}
	remote, err := netip.ParseAddr(m.RemoteIPAddress)
	if err != nil {
		return false
	}
	var local []netip.Addr
	for _, i := range h.Inventory.Interfaces {
		if i != nil && i.Name == m.OutgoingNic {
			for _, p := range interfaceAddrs(i) {
				if family(p.Addr()) == family(remote) {
					local = append(local, p.Addr())
				}
			}
		}
	}
	for _, cidr := range h.Cluster.MachineNetworks {
		if inNetwork(local, cidr) && inNetwork([]netip.Addr{remote}, cidr) {
			return true
		}
	}
	return false
}

func checkDefaultRoute(h HostFacts, _ Thresholds) Result {
	const id = HostHasDefaultRoute
	if h.Inventory == nil {
		return result(id, StatusPending, "Missing default routing information.")
	}
	for _, r := range h.Inventory.Routes {
		if r != nil && isDefaultRoute(r) {
			return result(id, StatusSuccess, "Host has been configured with at least one default route.")
		}
	}
	return result(id, StatusFailure, "Host has not yet been configured with a default route.")
}

func isDefaultRoute(r *models.Route) bool {
	gw, err1 := netip.ParseAddr(r.Gateway)
	dst, err2 := netip.ParseAddr(r.Destination)
	return err1 == nil && err2 == nil && dst.IsUnspecified() && !gw.IsUnspecified()
}

// hostNetwork is one network an interface is attached to.
type hostNetwork struct {
	cidr netip.Prefix
	nic  string
}

// hostNetworks lists the networks of the host's interfaces in one family,
// interface by interface, each interface's networks sorted and unique.
func hostNetworks(inv *models.Inventory, fam string) []hostNetwork {
	var out []hostNetwork
	for _, i := range inv.Interfaces {
		if i == nil {
			continue
		}
		var nets []netip.Prefix
		for _, p := range interfaceAddrs(i) {
			if family(p.Addr()) == fam && !slices.Contains(nets, p.Masked()) {
				nets = append(nets, p.Masked())
			}
		}
		slices.SortFunc(nets, func(a, b netip.Prefix) int { return cmp.Compare(a.String(), b.String()) })
		for _, n := range nets {
			out = append(out, hostNetwork{cidr: n, nic: i.Name})
		}
	}
	return out
}

func checkNonOverlappingSubnets(h HostFacts, _ Thresholds) Result {
	const id = HostNonOverlappingSubnets
	switch {
	case h.Inventory == nil:
		return result(id, StatusPending, "Missing inventory")
	case h.Cluster == nil:
		return hidden(id, "")
	}
	for _, fam := range clusterFamilies(h.Cluster) {
		if msg := overlap(hostNetworks(h.Inventory, fam)); msg != "" {
			return result(id, StatusFailure, "Address networks are overlapping: %s", msg)
		}
	}
	return result(id, StatusSuccess, "Host subnets are not overlapping")
}

func overlap(nets []hostNetwork) string {
	for i := range nets {
		for j := i + 1; j < len(nets); j++ {
			a, b := nets[i], nets[j]
			if a.cidr == b.cidr {
				return fmt.Sprintf("Address network %s appears on multiple interfaces [%s, %s]", a.cidr, a.nic, b.nic)
			}
			if a.cidr.Overlaps(b.cidr) {
				return fmt.Sprintf("Address networks %s in interface %s and %s in interface %s overlap", a.cidr, a.nic, b.cidr, b.nic)
			}
		}
	}
	return ""
}
