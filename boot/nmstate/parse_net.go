package nmstate

import (
	"fmt"
	"net/netip"
	"strings"

	"gopkg.in/yaml.v3"
)

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
