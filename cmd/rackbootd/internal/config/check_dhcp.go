package config

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/rackboot/rackboot/ipxe"
)

const minLease = 10 * time.Second

func (c *checker) dhcp(f fileDHCP) {
	d := &c.cfg.DHCP
	d.Mode = ModeOff
	if !c.ix.has("dhcp") {
		return
	}
	switch m := Mode(f.Mode); m {
	case ModeFull, ModeProxy, ModeOff:
		d.Mode = m
	case "":
		c.missing("dhcp.mode", "set full, proxy or off")
	default:
		c.errAt("dhcp.mode", "dhcp.mode must be full, proxy or off, not %q", f.Mode)
	}
	c.interfaces(f.Interfaces)
	c.subnet(f.Subnet)
	c.ranges(f.Range)
	if a := c.cfg.Server.Advertise; a.IsValid() && d.Mode == ModeFull {
		c.outsideRanges("server.advertise", a)
	}
	if f.Router != "" {
		if a, ok := c.addr("dhcp.router", f.Router); ok && c.inSubnet("dhcp.router", a) && c.outsideRanges("dhcp.router", a) {
			d.Router = a
		}
	}
	for i, s := range f.DNS {
		if a, ok := c.addr(fmt.Sprintf("dhcp.dns[%d]", i), s); ok {
			d.DNS = append(d.DNS, a)
		}
	}
	if f.Domain != "" {
		if err := ipxe.CheckHostname(f.Domain); err != nil {
			c.errAt("dhcp.domain", "dhcp.domain %q is not a valid domain name", f.Domain)
		}
		d.Domain = f.Domain
	}
	c.leaseTime(c.str("dhcp.lease_time", f.LeaseTime, "1h"))
}

func (c *checker) interfaces(names []string) {
	for i, n := range names {
		path := fmt.Sprintf("dhcp.interfaces[%d]", i)
		switch {
		case n == "" || len(n) > 15 || strings.ContainsAny(n, "/ \t\n:"):
			c.errAt(path, "dhcp.interfaces: %q is not a network interface name", n)
		case slices.Contains(names[:i], n):
			c.errAt(path, "dhcp.interfaces lists %q twice", n)
		default:
			c.cfg.DHCP.Interfaces = append(c.cfg.DHCP.Interfaces, n)
		}
	}
}

func (c *checker) subnet(s string) {
	if s == "" {
		if c.cfg.DHCP.Mode == ModeFull {
			c.missing("dhcp.subnet", "full mode needs the subnet it hands out addresses in")
		}
		return
	}
	p, err := netip.ParsePrefix(s)
	switch {
	case err != nil || !p.Addr().Is4():
		c.errAt("dhcp.subnet", "dhcp.subnet %q is not an IPv4 subnet like \"10.99.0.0/24\"", s)
	case p.Masked() != p:
		c.errAt("dhcp.subnet", "dhcp.subnet %s has host bits set; did you mean %s?", s, p.Masked())
	case p.Bits() > 30:
		c.errAt("dhcp.subnet", "dhcp.subnet %s is smaller than a /30 and has no room for hosts", s)
	default:
		c.cfg.DHCP.Subnet = p
	}
}

func (c *checker) leaseTime(s string) {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		c.errAt("dhcp.lease_time", "dhcp.lease_time %q is not a duration like \"1h\" or \"30m\"", s)
	case d < minLease:
		c.errAt("dhcp.lease_time", "dhcp.lease_time %s is shorter than %s", d, minLease)
	default:
		c.cfg.DHCP.LeaseTime = d.Truncate(time.Second)
	}
}

// addr parses an IPv4 address at path.
func (c *checker) addr(path, s string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is4() {
		c.errAt(path, "%s %q is not an IPv4 address", display(path), s)
		return netip.Addr{}, false
	}
	return a, true
}

// inSubnet reports whether a is a host address of dhcp.subnet (true when
// there is no subnet to compare with).
func (c *checker) inSubnet(path string, a netip.Addr) bool {
	sub := c.cfg.DHCP.Subnet
	switch {
	case !sub.IsValid():
		return true
	case !sub.Contains(a):
		c.errAt(path, "%s %s is outside dhcp.subnet %s", display(path), a, sub)
	case a == sub.Addr():
		c.errAt(path, "%s %s is the network address of dhcp.subnet %s", display(path), a, sub)
	case a == broadcast(sub):
		c.errAt(path, "%s %s is the broadcast address of dhcp.subnet %s", display(path), a, sub)
	default:
		return true
	}
	return false
}

// outsideRanges reports whether a is outside every dynamic range.
func (c *checker) outsideRanges(path string, a netip.Addr) bool {
	for _, r := range c.cfg.DHCP.Ranges {
		if r.Contains(a) {
			c.errAt(path, "%s %s is inside dhcp.range %s, which hands addresses out dynamically", display(path), a, r)
			return false
		}
	}
	return true
}

func broadcast(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().As4()
	host := uint32(1)<<(32-p.Bits()) - 1
	for i := range 4 {
		b[3-i] |= byte(host >> (8 * i))
	}
	return netip.AddrFrom4(b)
}
