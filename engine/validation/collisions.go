package validation

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// IPCollisions finds addresses that more than one NIC of the cluster's
// hosts claims: address → the sorted MACs that hold it.
func IPCollisions(hosts []ConnectivityHost) map[string][]string {
	owners := map[netip.Addr][]string{}
	for _, h := range hosts {
		if h.Inventory == nil {
			continue
		}
		for _, i := range h.Inventory.Interfaces {
			if i == nil {
				continue
			}
			for _, p := range interfaceAddrs(i) {
				mac := strings.ToLower(i.MacAddress)
				if !slices.Contains(owners[p.Addr()], mac) {
					owners[p.Addr()] = append(owners[p.Addr()], mac)
				}
			}
		}
	}
	out := map[string][]string{}
	for ip, macs := range owners {
		if len(macs) > 1 {
			slices.Sort(macs)
			out[ip.String()] = macs
		}
	}
	return out
}

func checkIPCollisions(h HostFacts, _ Thresholds) Result {
	switch {
	case h.Cluster == nil:
		return result(HostNoIPCollisions, StatusSuccess, "Cluster has not yet been defined, skipping validation.")
	case h.Inventory == nil:
		return result(HostNoIPCollisions, StatusSuccess, "Host inventory has not yet been defined, skipping validation.")
	case h.Cluster.IPCollisions == nil:
		return result(HostNoIPCollisions, StatusSuccess, "IP collisions have not yet been evaluated")
	}
	own := hostAddrs(h.Inventory)
	ips := make([]string, 0, len(h.Cluster.IPCollisions))
	for ip := range h.Cluster.IPCollisions {
		ips = append(ips, ip)
	}
	slices.Sort(ips)
	var b strings.Builder
	for _, s := range ips {
		if ip, err := netip.ParseAddr(s); err == nil && slices.Contains(own, ip) {
			fmt.Fprintf(&b, "Collisions detected for host ID %s, IP address: %s Mac addresses: %s\n",
				h.ID, s, strings.Join(h.Cluster.IPCollisions[s], ","))
		}
	}
	if b.Len() > 0 {
		return result(HostNoIPCollisions, StatusFailure, "%s", b.String())
	}
	return result(HostNoIPCollisions, StatusSuccess, "No IP collisions were detected by host %s", h.ID)
}
