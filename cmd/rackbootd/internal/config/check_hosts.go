package config

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/rackboot/rackboot/ipxe"
)

// reservations checks [[dhcp.reservation]]: each MAC, IP and hostname once.
func (c *checker) reservations(rs []fileReservation) {
	macs := map[string]Pos{}
	ips := map[netip.Addr]Pos{}
	names := map[string]Pos{}
	for i, f := range rs {
		base := fmt.Sprintf("dhcp.reservation[%d]", i)
		var res Reservation
		var macOK bool
		ipOK, nameOK := true, true
		res.MAC, macOK = c.mac(base+".mac", f.MAC, macs, "%s %s is reserved twice (also at %s)")
		if f.IP == "" && c.cfg.DHCP.Mode == ModeFull {
			c.missing(base+".ip", "full mode hands this MAC a fixed address")
			ipOK = false
		} else if f.IP != "" {
			res.IP, ipOK = c.reservedIP(base+".ip", f.IP, ips)
		}
		if f.Hostname != "" {
			res.Hostname, nameOK = f.Hostname, c.hostname(base+".hostname", f.Hostname, names)
		}
		if f.InfraEnv != "" {
			res.InfraEnv = f.InfraEnv
			nameOK = c.ref(base+".infra_env", f.InfraEnv) && nameOK
		}
		if macOK && ipOK && nameOK {
			c.cfg.DHCP.Reservations = append(c.cfg.DHCP.Reservations, res)
		}
	}
}

func (c *checker) hostname(path, name string, seen map[string]Pos) bool {
	if err := ipxe.CheckHostname(name); err != nil {
		c.errAt(path, "%s %q is not a valid hostname: letters, digits and '-' in dot-separated labels", display(path), name)
		return false
	}
	return c.once(path, name, seen, "%s %q is given twice (also at %s)", display(path))
}

// mac parses a MAC at path and reports one that seen already holds.
// dup formats the display path, the MAC and the earlier position.
func (c *checker) mac(path, s string, seen map[string]Pos, dup string) (net.HardwareAddr, bool) {
	if s == "" {
		c.missing(path, "set the MAC address, like \"52:54:00:00:00:01\"")
		return nil, false
	}
	hw, err := net.ParseMAC(s)
	if err != nil || len(hw) != 6 {
		c.errAt(path, "%s %q is not a MAC address like \"52:54:00:00:00:01\"", display(path), s)
		return nil, false
	}
	if !c.once(path, hw.String(), seen, dup, display(path)) {
		return nil, false
	}
	return hw, true
}

// once records key's position in seen and reports a key seen before with
// format, whose last two arguments are the key and the earlier position.
func (c *checker) once(path, key string, seen map[string]Pos, format string, args ...any) bool {
	if p, dup := seen[key]; dup {
		c.errAt(path, format, append(args, key, at(p))...)
		return false
	}
	seen[key] = c.ix.val(path)
	return true
}

func (c *checker) reservedIP(path, s string, seen map[netip.Addr]Pos) (netip.Addr, bool) {
	a, ok := c.addr(path, s)
	if !ok || !c.inSubnet(path, a) || !c.outsideRanges(path, a) {
		return netip.Addr{}, false
	}
	for _, other := range []struct {
		name string
		addr netip.Addr
	}{{"dhcp.router", c.cfg.DHCP.Router}, {"server.advertise", c.cfg.Server.Advertise}} {
		if a == other.addr {
			c.errAt(path, "%s %s is the address of %s", display(path), a, other.name)
			return netip.Addr{}, false
		}
	}
	if p, dup := seen[a]; dup {
		c.errAt(path, "%s %s is reserved twice (also at %s)", display(path), a, at(p))
		return netip.Addr{}, false
	}
	seen[a] = c.ix.val(path)
	return a, true
}
