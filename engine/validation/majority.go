package validation

import (
	"net/netip"
	"slices"

	"github.com/rackboot/rackboot/engine/models"
)

// ConnectivityHost is one host's side of the connectivity checks.
type ConnectivityHost struct {
	ID           string
	Inventory    *models.Inventory
	Connectivity *models.ConnectivityReport
}

// maxExactClique bounds the exact search for the largest group; bigger
// clusters get a greedy answer.
const maxExactClique = 40

// MajorityGroups computes, for every machine network CIDR, the largest set
// of hosts that all reach each other inside it (in both directions: ARP for
// IPv4, ping for IPv6), and for "IPv4" and "IPv6" the largest set that
// reach each other by ping on any address of that family (used with
// user-managed networking). The ids of each group are sorted.
func MajorityGroups(hosts []ConnectivityHost, machineNetworks []string) map[string][]string {
	out := map[string][]string{}
	for _, cidr := range machineNetworks {
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			continue
		}
		p = p.Masked()
		out[cidr] = largestGroup(hosts, func(a, b ConnectivityHost) bool { return reachesIn(a, b, p) })
	}
	for _, fam := range []string{familyIPv4, familyIPv6} {
		out[fam] = largestGroup(hosts, func(a, b ConnectivityHost) bool { return reachesL3(a, b, fam) })
	}
	return out
}

// remoteReport finds what a saw of b.
func remoteReport(a, b ConnectivityHost) *models.ConnectivityRemoteHost {
	if a.Connectivity == nil {
		return nil
	}
	for _, r := range a.Connectivity.RemoteHosts {
		if r != nil && r.HostID == b.ID {
			return r
		}
	}
	return nil
}

// reachesIn: a reached one of b's addresses inside p.
func reachesIn(a, b ConnectivityHost, p netip.Prefix) bool {
	r := remoteReport(a, b)
	if r == nil {
		return false
	}
	own := hostAddrs(b.Inventory)
	ok := func(s string) bool {
		ip, err := netip.ParseAddr(s)
		return err == nil && p.Contains(ip) && slices.Contains(own, ip)
	}
	if p.Addr().Is4() {
		return slices.ContainsFunc(r.L2Connectivity, func(l *models.L2Connectivity) bool {
			return l != nil && l.Successful && ok(l.RemoteIPAddress)
		})
	}
	return slices.ContainsFunc(r.L3Connectivity, func(l *models.L3Connectivity) bool {
		return l != nil && l.Successful && ok(l.RemoteIPAddress)
	})
}

// reachesL3: a pinged one of b's addresses of the family.
func reachesL3(a, b ConnectivityHost, fam string) bool {
	r := remoteReport(a, b)
	if r == nil {
		return false
	}
	own := hostAddrs(b.Inventory)
	return slices.ContainsFunc(r.L3Connectivity, func(l *models.L3Connectivity) bool {
		if l == nil || !l.Successful {
			return false
		}
		ip, err := netip.ParseAddr(l.RemoteIPAddress)
		return err == nil && family(ip) == fam && slices.Contains(own, ip)
	})
}

// largestGroup returns the sorted ids of the largest set of hosts that are
// pairwise connected both ways; of equal sets the first found in host
// order wins.
func largestGroup(hosts []ConnectivityHost, reaches func(a, b ConnectivityHost) bool) []string {
	n := len(hosts)
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			if reaches(hosts[i], hosts[j]) && reaches(hosts[j], hosts[i]) {
				adj[i][j], adj[j][i] = true, true
			}
		}
	}
	var best []int
	if n <= maxExactClique {
		best = exactClique(adj)
	} else {
		best = greedyClique(adj)
	}
	ids := make([]string, 0, len(best))
	for _, i := range best {
		ids = append(ids, hosts[i].ID)
	}
	slices.Sort(ids)
	return ids
}

// exactClique finds a maximum clique by branch and bound.
func exactClique(adj [][]bool) []int {
	var best []int
	var grow func(cur, cand []int)
	grow = func(cur, cand []int) {
		if len(cur)+len(cand) <= len(best) {
			return
		}
		if len(cand) == 0 {
			best = slices.Clone(cur)
			return
		}
		for k, v := range cand {
			if len(cur)+len(cand)-k <= len(best) {
				return
			}
			var next []int
			for _, w := range cand[k+1:] {
				if adj[v][w] {
					next = append(next, w)
				}
			}
			grow(append(cur, v), next)
		}
	}
	all := make([]int, len(adj))
	for i := range all {
		all[i] = i
	}
	grow(nil, all)
	return best
}

// greedyClique adds hosts by decreasing degree while they connect to all
// chosen so far.
func greedyClique(adj [][]bool) []int {
	order := make([]int, len(adj))
	degree := make([]int, len(adj))
	for i := range adj {
		order[i] = i
		for _, c := range adj[i] {
			if c {
				degree[i]++
			}
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return degree[b] - degree[a] })
	var chosen []int
	for _, v := range order {
		if !slices.ContainsFunc(chosen, func(u int) bool { return !adj[u][v] }) {
			chosen = append(chosen, v)
		}
	}
	return chosen
}
