package nmstate

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// nmType maps nmstate interface types to NetworkManager connection types.
var nmType = map[string]string{"ethernet": "ethernet", "bond": "bond", "vlan": "vlan", "linux-bridge": "bridge"}

// ipExtra is what other parts of the document add to one IP section.
type ipExtra struct {
	dns    []netip.Addr
	search []string
	routes []route
}

// render builds one keyfile per interface that is not absent, keyed by
// interface name.
func (st *netState) render() (map[string]keyfile, error) {
	extras, err := st.extras()
	if err != nil {
		return nil, err
	}
	out := map[string]keyfile{}
	for _, ifc := range st.ifaces {
		if ifc.state == "absent" {
			continue
		}
		kf := keyfile{ifc.connection()}
		kf = appendIf(kf, ifc.ethernet(), ifc.bondSection(), ifc.vlanSection(), ifc.bridgeSection())
		if ifc.controller == "" {
			kf = append(kf, ipSection(ifc.ipv4, false, extras[key{ifc.name, false}]),
				ipSection(ifc.ipv6, true, extras[key{ifc.name, true}]))
		}
		out[ifc.name] = kf
	}
	return out, nil
}

func appendIf(kf keyfile, secs ...*section) keyfile {
	for _, s := range secs {
		if s != nil {
			kf = append(kf, s)
		}
	}
	return kf
}

func (ifc *iface) connection() *section {
	s := &section{name: "connection"}
	s.set("id", ifc.name)
	s.set("uuid", connectionUUID(ifc.name))
	s.set("type", nmType[ifc.typ])
	s.set("interface-name", ifc.name)
	s.set("autoconnect", strconv.FormatBool(ifc.state == "up"))
	s.set("autoconnect-priority", "1")
	if ifc.bond != nil || ifc.bridge != nil {
		s.set("autoconnect-slaves", "1")
	}
	if ifc.controller != "" {
		s.set("master", ifc.controller)
		s.set("slave-type", ifc.portType)
	}
	return s
}

// ethernet holds the MAC (matched on an ethernet NIC, cloned on a virtual
// one) and the MTU.
func (ifc *iface) ethernet() *section {
	if ifc.mac == nil && ifc.mtu == 0 {
		return nil
	}
	s := &section{name: "ethernet"}
	if ifc.mac != nil {
		k := "cloned-mac-address"
		if ifc.typ == "ethernet" {
			k = "mac-address"
		}
		s.set(k, strings.ToUpper(ifc.mac.String()))
	}
	if ifc.mtu != 0 {
		s.set("mtu", strconv.FormatInt(ifc.mtu, 10))
	}
	return s
}

func (ifc *iface) bondSection() *section {
	if ifc.bond == nil {
		return nil
	}
	s := &section{name: "bond"}
	s.set("mode", ifc.bond.mode)
	for _, o := range ifc.bond.options {
		s.set(o[0], o[1])
	}
	return s
}

func (ifc *iface) vlanSection() *section {
	if ifc.vlan == nil {
		return nil
	}
	s := &section{name: "vlan"}
	s.set("id", strconv.FormatInt(ifc.vlan.id, 10))
	s.set("parent", ifc.vlan.base)
	return s
}

func (ifc *iface) bridgeSection() *section {
	if ifc.typ != "linux-bridge" {
		return nil
	}
	s := &section{name: "bridge"}
	if ifc.bridge != nil && ifc.bridge.stp != nil {
		s.set("stp", strconv.FormatBool(*ifc.bridge.stp))
	}
	return s
}

// method is NetworkManager's ipv4.method / ipv6.method.
func method(ip *ipConfig, v6 bool) string {
	switch {
	case ip == nil || !ip.enabled:
		return "disabled"
	case v6 && ip.dhcp && ip.autoconf:
		return "auto"
	case v6 && ip.dhcp:
		return "dhcp"
	case ip.dhcp:
		return "auto"
	case len(ip.addrs) > 0:
		return "manual"
	case v6:
		return "link-local"
	}
	return "disabled"
}

func ipSection(ip *ipConfig, v6 bool, ex ipExtra) *section {
	s := &section{name: "ipv4"}
	if v6 {
		s.name = "ipv6"
	}
	s.set("method", method(ip, v6))
	if ip == nil || !ip.enabled {
		return s
	}
	for i, a := range ip.addrs {
		s.set(fmt.Sprintf("address%d", i+1), a.String())
	}
	routes := ex.routes
	if gw, rest, ok := gateway(ip, routes); ok {
		s.set("gateway", gw.String())
		routes = rest
	}
	if len(ex.dns) > 0 {
		s.set("dns", joinList(ex.dns))
		s.set("dns-priority", "40") // as nmstate: static servers before DHCP ones
	}
	if len(ex.search) > 0 {
		s.set("dns-search", strings.Join(ex.search, ";")+";")
	}
	setNeg(s, "ignore-auto-dns", ip.autoDNS)
	setNeg(s, "ignore-auto-routes", ip.autoRoutes)
	setNeg(s, "never-default", ip.autoGateway)
	for i, r := range routes {
		s.set(fmt.Sprintf("route%d", i+1), routeValue(r))
		if r.table != nil && *r.table != 0 {
			s.set(fmt.Sprintf("route%d_options", i+1), fmt.Sprintf("table=%d", *r.table))
		}
	}
	if v6 {
		s.set("addr-gen-mode", "eui64")
	}
	return s
}

// setNeg writes a NetworkManager "ignore"/"never" flag for an nmstate
// "auto-*" setting given as false.
func setNeg(s *section, key string, auto *bool) {
	if auto != nil {
		s.set(key, strconv.FormatBool(!*auto))
	}
}

func joinList(addrs []netip.Addr) string {
	var b strings.Builder
	for _, a := range addrs {
		b.WriteString(a.String())
		b.WriteByte(';')
	}
	return b.String()
}

// gateway picks the first default route that NetworkManager can express
// as the gateway property: main table, no metric, static addresses present
// and auto-gateway not switched off.
func gateway(ip *ipConfig, routes []route) (netip.Addr, []route, bool) {
	if len(ip.addrs) == 0 || (ip.autoGateway != nil && !*ip.autoGateway) {
		return netip.Addr{}, routes, false
	}
	for i, r := range routes {
		mainTable := r.table == nil || *r.table == 0 || *r.table == 254
		if r.dest.Bits() == 0 && r.nextHop.IsValid() && mainTable && r.metric == nil {
			rest := append(append([]route(nil), routes[:i]...), routes[i+1:]...)
			return r.nextHop, rest, true
		}
	}
	return netip.Addr{}, routes, false
}

// routeValue is "dest/plen[,next-hop[,metric]]".
func routeValue(r route) string {
	v := r.dest.String()
	switch {
	case r.metric != nil:
		hop := r.nextHop
		if !hop.IsValid() {
			hop = netip.IPv4Unspecified()
			if r.dest.Addr().Is6() {
				hop = netip.IPv6Unspecified()
			}
		}
		v += fmt.Sprintf(",%s,%d", hop, *r.metric)
	case r.nextHop.IsValid():
		v += "," + r.nextHop.String()
	}
	return v
}
