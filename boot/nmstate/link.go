package nmstate

import (
	"fmt"
	"net"
)

// NIC maps a MAC address to the logical interface name the NMState YAML
// uses for that NIC (an NMStateConfig's spec.interfaces entry).
type NIC struct {
	Name string `json:"name" yaml:"name"`
	MAC  string `json:"macAddress" yaml:"macAddress"`
}

// nicEntry is a checked NIC with the key path it came from.
type nicEntry struct {
	name string
	mac  net.HardwareAddr
	path string
}

// checkNICs validates a MAC map: valid names and MACs, each used once.
// Errors name base[i].nameKey or base[i].macKey.
func checkNICs(nics []NIC, base, nameKey, macKey string) ([]nicEntry, error) {
	out := make([]nicEntry, 0, len(nics))
	byName, byMAC := map[string]string{}, map[string]string{}
	for i, n := range nics {
		p := indexPath(base, i)
		name, err := checkName(n.Name, childPath(p, nameKey))
		if err != nil {
			return nil, err
		}
		mac, err := parseMAC(n.MAC, childPath(p, macKey))
		if err != nil {
			return nil, err
		}
		if o, dup := byName[name]; dup {
			return nil, errAt(childPath(p, nameKey), ErrConflict, fmt.Sprintf("%q is mapped twice (also %s)", name, o))
		}
		if o, dup := byMAC[mac.String()]; dup {
			return nil, errAt(childPath(p, macKey), ErrConflict, fmt.Sprintf("%s is mapped twice (also %s)", mac, o))
		}
		byName[name], byMAC[mac.String()] = p, p
		out = append(out, nicEntry{name: name, mac: mac, path: p})
	}
	return out, nil
}

// checkName accepts what the kernel accepts as a link name, which also
// keeps "<name>.nmconnection" a plain file name.
func checkName(s, path string) (string, error) {
	if s == "" || len(s) > 15 || s == "." || s == ".." || containsAnyRune(s, "/: \t=;#[]\\\"'") || hasControl(s) {
		return "", errAt(path, ErrInvalid, fmt.Sprintf("%q is not an interface name (1-15 characters, no '/', ':', blanks or quotes)", s))
	}
	return s, nil
}

func containsAnyRune(s, set string) bool {
	for _, r := range s {
		for _, c := range set {
			if r == c {
				return true
			}
		}
	}
	return false
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// link resolves every cross-reference of a parsed state: unique names, the
// MAC map, controller ports, VLAN parents and route interfaces.
func (st *netState) link(nics []nicEntry) error {
	byName := map[string]*iface{}
	for _, ifc := range st.ifaces {
		if o, dup := byName[ifc.name]; dup {
			return errAt(childPath(ifc.path, "name"), ErrConflict, fmt.Sprintf("interface %q is defined twice (also %s)", ifc.name, o.path))
		}
		byName[ifc.name] = ifc
	}
	if err := applyNICs(byName, nics); err != nil {
		return err
	}
	for _, ifc := range append([]*iface(nil), st.ifaces...) {
		if err := st.linkPorts(ifc, byName, nics); err != nil {
			return err
		}
	}
	for _, ifc := range st.ifaces {
		if err := linkVLAN(ifc, byName); err != nil {
			return err
		}
	}
	for _, r := range st.routes {
		if _, err := routeIface(r, byName); err != nil {
			return err
		}
	}
	return nil
}

func applyNICs(byName map[string]*iface, nics []nicEntry) error {
	for _, n := range nics {
		ifc, ok := byName[n.name]
		if !ok || ifc.state == "absent" {
			continue
		}
		if ifc.typ != "ethernet" {
			return errAt(n.path, ErrConflict, fmt.Sprintf("%q is a %s interface, a MAC can only name an ethernet one", n.name, ifc.typ))
		}
		if ifc.mac != nil && ifc.mac.String() != n.mac.String() {
			return errAt(childPath(ifc.path, "mac-address"), ErrConflict, fmt.Sprintf("%s differs from %s in the MAC map (%s)", ifc.mac, n.mac, n.path))
		}
		ifc.mac = n.mac
	}
	return nil
}

func (st *netState) linkPorts(ctl *iface, byName map[string]*iface, nics []nicEntry) error {
	if ctl.state == "absent" {
		return nil
	}
	var ports []string
	var path, kind string
	switch {
	case ctl.bond != nil:
		ports, path, kind = ctl.bond.ports, childPath(ctl.bond.path, ctl.bond.portKey), "bond"
	case ctl.bridge != nil:
		ports, path, kind = ctl.bridge.ports, childPath(ctl.bridge.path, "port"), "bridge"
	default:
		return nil
	}
	for i, name := range ports {
		p := indexPath(path, i)
		port, err := st.portIface(name, p, byName, nics)
		if err != nil {
			return err
		}
		if err := attach(ctl, port, kind, p); err != nil {
			return err
		}
	}
	return nil
}

// portIface finds a port; one only in the MAC map becomes an ethernet port.
func (st *netState) portIface(name, path string, byName map[string]*iface, nics []nicEntry) (*iface, error) {
	if ifc, ok := byName[name]; ok {
		if ifc.state == "absent" {
			return nil, errAt(path, ErrUndefined, fmt.Sprintf("%q has state absent", name))
		}
		return ifc, nil
	}
	for _, n := range nics {
		if n.name == name {
			ifc := &iface{path: path, name: name, typ: "ethernet", state: "up", mac: n.mac, implicit: true}
			st.ifaces = append(st.ifaces, ifc)
			byName[name] = ifc
			return ifc, nil
		}
	}
	return nil, errAt(path, ErrUndefined, fmt.Sprintf("%q is neither in interfaces nor in the MAC map", name))
}

func attach(ctl, port *iface, kind, path string) error {
	if port == ctl {
		return errAt(path, ErrInvalid, fmt.Sprintf("%q cannot be a port of itself", port.name))
	}
	if port.controller != "" {
		return errAt(path, ErrConflict, fmt.Sprintf("%q is already a port of %q", port.name, port.controller))
	}
	for _, ip := range []*ipConfig{port.ipv4, port.ipv6} {
		if ip != nil && ip.enabled {
			return errAt(ip.path, ErrConflict, fmt.Sprintf("IP is enabled on %q, a port of %s %q", port.name, kind, ctl.name))
		}
	}
	port.controller, port.portType = ctl.name, kind
	return nil
}

func linkVLAN(ifc *iface, byName map[string]*iface) error {
	if ifc.vlan == nil || ifc.state == "absent" {
		return nil
	}
	p := childPath(ifc.vlan.path, "base-iface")
	if ifc.vlan.base == ifc.name {
		return errAt(p, ErrInvalid, fmt.Sprintf("%q cannot be its own base interface", ifc.name))
	}
	if base, ok := byName[ifc.vlan.base]; ok && base.state == "absent" {
		return errAt(p, ErrUndefined, fmt.Sprintf("%q has state absent", base.name))
	}
	return nil
}

// routeIface returns the interface a route leaves by, which must carry IP
// of the route's family.
func routeIface(r route, byName map[string]*iface) (*iface, error) {
	p := childPath(r.path, "next-hop-interface")
	ifc, ok := byName[r.iface]
	if !ok || ifc.state == "absent" {
		return nil, errAt(p, ErrUndefined, fmt.Sprintf("%q is not defined in interfaces", r.iface))
	}
	if ifc.controller != "" {
		return nil, errAt(p, ErrConflict, fmt.Sprintf("%q is a port of %q and carries no IP", r.iface, ifc.controller))
	}
	v6 := r.dest.Addr().Is6()
	if !ifc.ipOf(v6).usable(v6) {
		return nil, errAt(p, ErrConflict, fmt.Sprintf("%q has no %s configured (dhcp or addresses)", r.iface, family(v6)))
	}
	return ifc, nil
}

func (ifc *iface) ipOf(v6 bool) *ipConfig {
	if v6 {
		return ifc.ipv6
	}
	return ifc.ipv4
}

// usable: the family will have addresses (static or dynamic) on the link.
func (ip *ipConfig) usable(v6 bool) bool {
	if ip == nil || !ip.enabled {
		return false
	}
	return v6 || ip.dhcp || len(ip.addrs) > 0
}
