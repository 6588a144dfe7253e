package nmstate

import (
	"fmt"
	"net"
	"net/netip"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// parseState checks the top of an NMState document.
func parseState(root *yaml.Node, base string) (*netState, error) {
	top, err := mapping(root, base, "interfaces", "dns-resolver", "routes")
	if err != nil {
		return nil, err
	}
	st := &netState{base: base}
	if it, ok := top.get("interfaces"); ok {
		if st.ifaces, err = parseInterfaces(it.node, it.path); err != nil {
			return nil, err
		}
	}
	if it, ok := top.get("dns-resolver"); ok {
		if st.dns, err = parseDNS(it.node, it.path); err != nil {
			return nil, err
		}
	}
	if it, ok := top.get("routes"); ok {
		if st.routes, err = parseRoutes(it.node, it.path); err != nil {
			return nil, err
		}
	}
	return st, nil
}

func parseInterfaces(n *yaml.Node, path string) ([]*iface, error) {
	items, err := sequence(n, path)
	if err != nil {
		return nil, err
	}
	out := make([]*iface, 0, len(items))
	for i, it := range items {
		ifc, err := parseInterface(it, indexPath(path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, ifc)
	}
	return out, nil
}

func parseInterface(n *yaml.Node, path string) (*iface, error) {
	f, err := mapping(n, path, "name", "type", "state", "mac-address", "mtu",
		"ipv4", "ipv6", "link-aggregation", "vlan", "bridge")
	if err != nil {
		return nil, err
	}
	ifc := &iface{path: path, state: "up"}
	it, err := f.require("name")
	if err != nil {
		return nil, err
	}
	if ifc.name, err = ifaceName(it.node, it.path); err != nil {
		return nil, err
	}
	if it, ok := f.get("state"); ok {
		if ifc.state, err = oneOf(it, "up", "down", "absent"); err != nil {
			return nil, err
		}
	}
	if err := parseType(f, ifc); err != nil {
		return nil, err
	}
	if it, ok := f.get("mac-address"); ok {
		if ifc.mac, err = macAddr(it.node, it.path); err != nil {
			return nil, err
		}
	}
	if it, ok := f.get("mtu"); ok {
		if ifc.mtu, err = integer(it.node, it.path, 68, 65535); err != nil {
			return nil, err
		}
	}
	if it, ok := f.get("ipv4"); ok {
		if ifc.ipv4, err = parseIP(it.node, it.path, false); err != nil {
			return nil, err
		}
	}
	if it, ok := f.get("ipv6"); ok {
		if ifc.ipv6, err = parseIP(it.node, it.path, true); err != nil {
			return nil, err
		}
	}
	return ifc, parseKindBlocks(f, ifc)
}

func parseType(f fields, ifc *iface) error {
	it, ok := f.get("type")
	if !ok {
		if ifc.state == "absent" {
			return nil
		}
		return errAt(childPath(f.path, "type"), ErrMissing, "")
	}
	var err error
	ifc.typ, err = oneOf(it, "ethernet", "bond", "vlan", "linux-bridge")
	return err
}

// parseKindBlocks reads link-aggregation, vlan and bridge, each only on an
// interface of its type.
func parseKindBlocks(f fields, ifc *iface) error {
	blocks := []struct {
		key, typ string
		parse    func(field) error
	}{
		{"link-aggregation", "bond", func(it field) (err error) { ifc.bond, err = parseBond(it.node, it.path); return }},
		{"vlan", "vlan", func(it field) (err error) { ifc.vlan, err = parseVLAN(it.node, it.path); return }},
		{"bridge", "linux-bridge", func(it field) (err error) { ifc.bridge, err = parseBridge(it.node, it.path); return }},
	}
	for _, b := range blocks {
		it, ok := f.get(b.key)
		switch {
		case ok && ifc.typ != b.typ:
			return errAt(it.path, ErrInvalid, fmt.Sprintf("only valid on an interface of type %s, not %q", b.typ, ifc.typ))
		case ok:
			if err := b.parse(it); err != nil {
				return err
			}
		case ifc.typ == b.typ && ifc.state != "absent" && b.typ != "linux-bridge":
			return errAt(childPath(f.path, b.key), ErrMissing, "")
		}
	}
	return nil
}

func oneOf(it field, allowed ...string) (string, error) {
	s, err := str(it.node, it.path)
	if err != nil {
		return "", err
	}
	if !contains(allowed, s) {
		return "", errAt(it.path, ErrInvalid, fmt.Sprintf("%q is not one of %s", s, strings.Join(allowed, ", ")))
	}
	return s, nil
}

func ifaceName(n *yaml.Node, path string) (string, error) {
	s, err := str(n, path)
	if err != nil {
		return "", err
	}
	return checkName(s, path)
}

func macAddr(n *yaml.Node, path string) (net.HardwareAddr, error) {
	s, err := str(n, path)
	if err != nil {
		return nil, err
	}
	return parseMAC(s, path)
}

func parseMAC(s, path string) (net.HardwareAddr, error) {
	mac, err := net.ParseMAC(s)
	if err != nil || len(mac) != 6 {
		return nil, errAt(path, ErrInvalid, fmt.Sprintf("%q is not a MAC address", s))
	}
	return mac, nil
}

func parseIP(n *yaml.Node, path string, v6 bool) (*ipConfig, error) {
	keys := []string{"enabled", "dhcp", "address", "auto-dns", "auto-gateway", "auto-routes"}
	if v6 {
		keys = append(keys, "autoconf")
	}
	f, err := mapping(n, path, keys...)
	if err != nil {
		return nil, err
	}
	ip := &ipConfig{path: path}
	enabled, err := optBool(f, "enabled")
	if err != nil {
		return nil, err
	}
	for _, b := range []struct {
		key string
		dst *bool
	}{{"dhcp", &ip.dhcp}, {"autoconf", &ip.autoconf}} {
		if v, err := optBool(f, b.key); err != nil {
			return nil, err
		} else if v != nil {
			*b.dst = *v
		}
	}
	if it, ok := f.get("address"); ok {
		if ip.addrs, err = parseAddrs(it.node, it.path, v6); err != nil {
			return nil, err
		}
	}
	if ip.autoDNS, err = optBool(f, "auto-dns"); err != nil {
		return nil, err
	}
	if ip.autoGateway, err = optBool(f, "auto-gateway"); err != nil {
		return nil, err
	}
	if ip.autoRoutes, err = optBool(f, "auto-routes"); err != nil {
		return nil, err
	}
	return ip, ip.settle(enabled)
}

// settle decides enabled: explicit, or implied by dhcp/autoconf/addresses.
func (ip *ipConfig) settle(enabled *bool) error {
	implied := ip.dhcp || ip.autoconf || len(ip.addrs) > 0
	if enabled != nil && !*enabled && implied {
		return errAt(ip.path, ErrConflict, "enabled is false but dhcp, autoconf or addresses are set")
	}
	ip.enabled = implied || (enabled != nil && *enabled)
	if ip.autoconf && !ip.dhcp {
		return errAt(childPath(ip.path, "autoconf"), ErrConflict, "autoconf without dhcp is not supported (NetworkManager has no SLAAC-only method)")
	}
	return nil
}

func parseAddrs(n *yaml.Node, path string, v6 bool) ([]netip.Prefix, error) {
	items, err := sequence(n, path)
	if err != nil {
		return nil, err
	}
	out := make([]netip.Prefix, 0, len(items))
	seen := make(map[netip.Prefix]bool, len(items))
	for i, it := range items {
		p, err := parseAddr(it, indexPath(path, i), v6)
		if err != nil {
			return nil, err
		}
		if seen[p] {
			return nil, errAt(indexPath(path, i), ErrInvalid, fmt.Sprintf("address %s given twice", p))
		}
		seen[p] = true
		out = append(out, p)
	}
	return out, nil
}

func parseAddr(n *yaml.Node, path string, v6 bool) (netip.Prefix, error) {
	f, err := mapping(n, path, "ip", "prefix-length")
	if err != nil {
		return netip.Prefix{}, err
	}
	it, err := f.require("ip")
	if err != nil {
		return netip.Prefix{}, err
	}
	addr, err := ipAddr(it, v6)
	if err != nil {
		return netip.Prefix{}, err
	}
	it, err = f.require("prefix-length")
	if err != nil {
		return netip.Prefix{}, err
	}
	plen, err := integer(it.node, it.path, 0, int64(addr.BitLen()))
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(addr, int(plen)), nil
}

func ipAddr(it field, v6 bool) (netip.Addr, error) {
	s, err := str(it.node, it.path)
	if err != nil {
		return netip.Addr{}, err
	}
	addr, err := netip.ParseAddr(s)
	if err != nil || addr.Zone() != "" {
		return netip.Addr{}, errAt(it.path, ErrInvalid, fmt.Sprintf("%q is not an IP address", s))
	}
	if addr.Is4() == v6 {
		return netip.Addr{}, errAt(it.path, ErrInvalid, fmt.Sprintf("%q is not an %s address", s, family(v6)))
	}
	return addr, nil
}

func family(v6 bool) string {
	if v6 {
		return "IPv6"
	}
	return "IPv4"
}

func parseBond(n *yaml.Node, path string) (*bondConfig, error) {
	f, err := mapping(n, path, "mode", "options", "port", "slaves")
	if err != nil {
		return nil, err
	}
	b := &bondConfig{path: path}
	it, err := f.require("mode")
	if err != nil {
		return nil, err
	}
	if b.mode, err = oneOf(it, bondModes...); err != nil {
		return nil, err
	}
	if it, ok := f.get("options"); ok {
		if b.options, err = parseBondOptions(it.node, it.path); err != nil {
			return nil, err
		}
	}
	_, hasPort := f.get("port")
	_, hasSlaves := f.get("slaves")
	if hasPort && hasSlaves {
		return nil, errAt(childPath(path, "slaves"), ErrConflict, "give either port or slaves, not both")
	}
	b.portKey = "port"
	if hasSlaves {
		b.portKey = "slaves"
	}
	if it, ok := f.get(b.portKey); ok {
		if b.ports, err = portList(it.node, it.path); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func parseBondOptions(n *yaml.Node, path string) ([][2]string, error) {
	f, err := mapping(n, path, bondOptions...)
	if err != nil {
		return nil, err
	}
	out := make([][2]string, 0, len(f.items))
	for _, it := range f.items {
		v, err := str(it.node, it.path)
		if err != nil {
			return nil, err
		}
		if it.node.Tag == "!!bool" {
			if b, _ := boolean(it.node, it.path); b {
				v = "1"
			} else {
				v = "0"
			}
		}
		if v == "" || strings.ContainsAny(v, " \t") {
			return nil, errAt(it.path, ErrInvalid, fmt.Sprintf("%q is not a bond option value", v))
		}
		out = append(out, [2]string{it.key, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out, nil
}

func portList(n *yaml.Node, path string) ([]string, error) {
	items, err := sequence(n, path)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(items))
	seen := make(map[string]bool, len(items))
	for i, it := range items {
		name, err := ifaceName(it, indexPath(path, i))
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, errAt(indexPath(path, i), ErrInvalid, fmt.Sprintf("port %q listed twice", name))
		}
		seen[name] = true
		out = append(out, name)
	}
	return out, nil
}

func parseVLAN(n *yaml.Node, path string) (*vlanConfig, error) {
	f, err := mapping(n, path, "base-iface", "id")
	if err != nil {
		return nil, err
	}
	v := &vlanConfig{path: path}
	it, err := f.require("base-iface")
	if err != nil {
		return nil, err
	}
	if v.base, err = ifaceName(it.node, it.path); err != nil {
		return nil, err
	}
	if it, err = f.require("id"); err != nil {
		return nil, err
	}
	v.id, err = integer(it.node, it.path, 0, 4094)
	return v, err
}

func parseBridge(n *yaml.Node, path string) (*bridgeConfig, error) {
	f, err := mapping(n, path, "options", "port")
	if err != nil {
		return nil, err
	}
	br := &bridgeConfig{path: path}
	if it, ok := f.get("options"); ok {
		opts, err := mapping(it.node, it.path, "stp")
		if err != nil {
			return nil, err
		}
		if it, ok := opts.get("stp"); ok {
			stp, err := mapping(it.node, it.path, "enabled")
			if err != nil {
				return nil, err
			}
			if br.stp, err = optBool(stp, "enabled"); err != nil {
				return nil, err
			}
		}
	}
	if it, ok := f.get("port"); ok {
		if br.ports, err = bridgePorts(it.node, it.path); err != nil {
			return nil, err
		}
	}
	return br, nil
}

func bridgePorts(n *yaml.Node, path string) ([]string, error) {
	items, err := sequence(n, path)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := make(map[string]bool, len(items))
	for i, it := range items {
		p, err := mapping(it, indexPath(path, i), "name")
		if err != nil {
			return nil, err
		}
		nf, err := p.require("name")
		if err != nil {
			return nil, err
		}
		name, err := ifaceName(nf.node, nf.path)
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, errAt(nf.path, ErrInvalid, fmt.Sprintf("port %q listed twice", name))
		}
		seen[name] = true
		out = append(out, name)
	}
	return out, nil
}

func parseDNS(n *yaml.Node, path string) (dnsConfig, error) {
	var d dnsConfig
	top, err := mapping(n, path, "config")
	if err != nil {
		return d, err
	}
	it, ok := top.get("config")
	if !ok {
		return d, nil
	}
	f, err := mapping(it.node, it.path, "server", "search")
	if err != nil {
		return d, err
	}
	if it, ok := f.get("server"); ok {
		if d.servers, err = dnsServers(it.node, it.path); err != nil {
			return d, err
		}
	}
	if it, ok := f.get("search"); ok {
		if d.search, err = searchDomains(it.node, it.path); err != nil {
			return d, err
		}
	}
	return d, nil
}

func dnsServers(n *yaml.Node, path string) ([]netip.Addr, error) {
	list, err := stringList(n, path)
	if err != nil {
		return nil, err
	}
	out := make([]netip.Addr, len(list))
	for i, s := range list {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return nil, errAt(indexPath(path, i), ErrInvalid, fmt.Sprintf("%q is not an IP address", s))
		}
		out[i] = a
	}
	return out, nil
}

func searchDomains(n *yaml.Node, path string) ([]string, error) {
	list, err := stringList(n, path)
	if err != nil {
		return nil, err
	}
	for i, s := range list {
		if s == "" || len(s) > 253 || strings.ContainsAny(s, " \t;,#=\\/") {
			return nil, errAt(indexPath(path, i), ErrInvalid, fmt.Sprintf("%q is not a domain name", s))
		}
	}
	return list, nil
}

func parseRoutes(n *yaml.Node, path string) ([]route, error) {
	top, err := mapping(n, path, "config")
	if err != nil {
		return nil, err
	}
	it, ok := top.get("config")
	if !ok {
		return nil, nil
	}
	items, err := sequence(it.node, it.path)
	if err != nil {
		return nil, err
	}
	out := make([]route, 0, len(items))
	for i, rn := range items {
		r, err := parseRoute(rn, indexPath(it.path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func parseRoute(n *yaml.Node, path string) (route, error) {
	r := route{path: path}
	f, err := mapping(n, path, "destination", "next-hop-address", "next-hop-interface", "metric", "table-id")
	if err != nil {
		return r, err
	}
	it, err := f.require("destination")
	if err != nil {
		return r, err
	}
	if r.dest, err = destination(it); err != nil {
		return r, err
	}
	if it, ok := f.get("next-hop-address"); ok {
		if r.nextHop, err = ipAddr(it, r.dest.Addr().Is6()); err != nil {
			return r, err
		}
	}
	if it, err = f.require("next-hop-interface"); err != nil {
		return r, err
	}
	if r.iface, err = ifaceName(it.node, it.path); err != nil {
		return r, err
	}
	if r.metric, err = optUint32(f, "metric"); err != nil {
		return r, err
	}
	r.table, err = optUint32(f, "table-id")
	return r, err
}

// destination accepts a prefix (host bits are cleared, as nmstate does) or
// a bare address (a host route).
func destination(it field) (netip.Prefix, error) {
	s, err := str(it.node, it.path)
	if err != nil {
		return netip.Prefix{}, err
	}
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), nil
	}
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	return netip.Prefix{}, errAt(it.path, ErrInvalid, fmt.Sprintf("%q is not an IP prefix", s))
}
