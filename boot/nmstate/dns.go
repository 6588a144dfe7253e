package nmstate

import (
	"fmt"
	"net/netip"
)

type key struct {
	name string
	v6   bool
}

// extras distributes routes and DNS settings to the IP sections of the
// interfaces that carry them.
func (st *netState) extras() (map[key]ipExtra, error) {
	out := map[key]ipExtra{}
	for _, r := range st.routes {
		k := key{r.iface, r.dest.Addr().Is6()}
		ex := out[k]
		ex.routes = append(ex.routes, r)
		out[k] = ex
	}
	searchDone := false
	for _, v6 := range []bool{false, true} {
		servers := serversOf(st.dns.servers, v6)
		if len(servers) == 0 {
			continue
		}
		ifc := st.dnsTarget(v6)
		if ifc == nil {
			return nil, errAt(childPath(st.base, "dns-resolver.config.server"), ErrConflict,
				fmt.Sprintf("no interface has %s configured to carry DNS server %s", family(v6), servers[0]))
		}
		k := key{ifc.name, v6}
		ex := out[k]
		ex.dns = servers
		if !searchDone {
			ex.search, searchDone = st.dns.search, true
		}
		out[k] = ex
	}
	if !searchDone && len(st.dns.search) > 0 {
		return out, st.placeSearch(out)
	}
	return out, nil
}

// placeSearch puts search domains given without servers on the first
// interface with IPv4, else IPv6.
func (st *netState) placeSearch(out map[key]ipExtra) error {
	for _, v6 := range []bool{false, true} {
		if ifc := st.dnsTarget(v6); ifc != nil {
			k := key{ifc.name, v6}
			ex := out[k]
			ex.search = st.dns.search
			out[k] = ex
			return nil
		}
	}
	return errAt(childPath(st.base, "dns-resolver.config.search"), ErrConflict, "no interface has IP configured to carry search domains")
}

func serversOf(all []netip.Addr, v6 bool) []netip.Addr {
	var out []netip.Addr
	for _, a := range all {
		if a.Is4() != v6 {
			out = append(out, a)
		}
	}
	return out
}

// dnsTarget is the interface of the first default route of the family,
// else the first interface with static addresses of the family, else the
// first with the family configured at all.
func (st *netState) dnsTarget(v6 bool) *iface {
	for _, r := range st.routes {
		if r.dest.Bits() == 0 && r.dest.Addr().Is6() == v6 {
			if ifc := st.find(r.iface); ifc != nil {
				return ifc
			}
		}
	}
	var fallback *iface
	for _, ifc := range st.ifaces {
		ip := ifc.ipOf(v6)
		if ifc.state != "up" || ifc.controller != "" || !ip.usable(v6) {
			continue
		}
		if len(ip.addrs) > 0 {
			return ifc
		}
		if fallback == nil && (ip.dhcp || ip.autoconf) {
			fallback = ifc
		}
	}
	return fallback
}

func (st *netState) find(name string) *iface {
	for _, ifc := range st.ifaces {
		if ifc.name == name && ifc.state != "absent" {
			return ifc
		}
	}
	return nil
}
