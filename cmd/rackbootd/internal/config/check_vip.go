package config

import (
	"net"
	"net/netip"
	"strings"
)

// clusterVIP checks cluster.vip and cluster.vip_interface: the rack's
// service address, which the leader holds and every URL handed to hosts
// and BMCs names, so it must be server.advertise; and the HTTP server must
// not listen on it alone, since only the leader has it.
func (c *checker) clusterVIP(f fileCluster, cl *Cluster) {
	if f.VIP == "" {
		if f.VIPInterface != "" {
			c.errAt("cluster.vip_interface", "cluster.vip_interface is set but cluster.vip is not")
		}
		return
	}
	p, err := netip.ParsePrefix(f.VIP)
	if err != nil || !p.Addr().Is4() || p.Bits() < 8 {
		c.errAt("cluster.vip", "cluster.vip %q is not an IPv4 address with its prefix length (for example \"10.99.0.1/24\")", f.VIP)
		return
	}
	if adv := c.cfg.Server.Advertise; adv.IsValid() && adv != p.Addr() {
		c.errAt("cluster.vip", "cluster.vip %s is not server.advertise %s: hosts and BMCs are handed server.advertise, which must be the service address", p.Addr(), adv)
	}
	if host, _, err := net.SplitHostPort(c.cfg.Server.HTTPListen); err == nil && host == p.Addr().String() {
		c.errAt("server.http_listen", "server.http_listen %q binds the service address, which only the leader holds: listen on 0.0.0.0 or this appliance's own address", c.cfg.Server.HTTPListen)
	}
	if f.VIPInterface == "" {
		c.missing("cluster.vip_interface", "name the interface the service address goes on")
		return
	}
	if len(f.VIPInterface) > 15 || strings.ContainsAny(f.VIPInterface, "/ \t\n:") {
		c.errAt("cluster.vip_interface", "cluster.vip_interface %q is not a network interface name", f.VIPInterface)
		return
	}
	cl.VIP, cl.VIPInterface = p, f.VIPInterface
}
