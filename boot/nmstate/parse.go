package nmstate

import (
	"fmt"
	"net"
	"net/netip"
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
