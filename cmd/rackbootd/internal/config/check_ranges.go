package config

import (
	"fmt"
	"net/netip"
)

const rangeShape = `dhcp.range must be ["first", "last"] or a list of such pairs`

// ranges checks dhcp.range: one pair of addresses, or an array of pairs.
func (c *checker) ranges(v any) {
	if v == nil {
		return
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		c.errAt("dhcp.range", rangeShape)
		return
	}
	if _, nested := list[0].([]any); !nested {
		c.rangePair("dhcp.range", list)
		return
	}
	for i, p := range list {
		path := fmt.Sprintf("dhcp.range[%d]", i)
		pair, ok := p.([]any)
		if !ok {
			c.errAt(path, rangeShape)
			continue
		}
		c.rangePair(path, pair)
	}
}

// rangePair checks one [first, last] pair at path and adds it to the config
// when it is sound and overlaps no earlier range.
func (c *checker) rangePair(path string, pair []any) {
	if len(pair) != 2 {
		c.errAt(path, rangeShape)
		return
	}
	var ends [2]netip.Addr
	for i, e := range pair {
		epath := fmt.Sprintf("%s[%d]", path, i)
		s, ok := e.(string)
		if !ok {
			c.errAt(epath, rangeShape)
			return
		}
		a, ok := c.addr(epath, s)
		if !ok || !c.inSubnet(epath, a) {
			return
		}
		ends[i] = a
	}
	r := Range{Start: ends[0], End: ends[1]}
	if r.End.Less(r.Start) {
		c.errAt(path, "dhcp.range %s-%s is reversed: the first address comes after the last", r.Start, r.End)
		return
	}
	for _, o := range c.cfg.DHCP.Ranges {
		if !r.End.Less(o.Start) && !o.End.Less(r.Start) {
			c.errAt(path, "dhcp.range %s overlaps dhcp.range %s", r, o)
			return
		}
	}
	c.cfg.DHCP.Ranges = append(c.cfg.DHCP.Ranges, r)
}
