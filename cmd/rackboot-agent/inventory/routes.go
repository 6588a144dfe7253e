package inventory

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"strconv"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

// Route flags of the kernel (linux/route.h, linux/ipv6_route.h).
const (
	rtfUp      = 0x0001
	rtfGateway = 0x0002
	rtfReject  = 0x0200
	rtfLocal   = 0x80000000
)

// ParseRoutes4 parses /proc/net/route (the IPv4 main table). Routes that
// are down or reject, and routes on lo, are left out. Destinations are
// addresses without prefix length and Gateway is empty for direct routes,
// as upstream reports them from netlink.
func ParseRoutes4(b []byte) ([]*models.Route, error) {
	out := []*models.Route{}
	err := eachLine(b, 1, func(n int, f []string) error {
		if len(f) < 8 {
			return fmt.Errorf("%w: route line %d has %d fields", ErrParse, n, len(f))
		}
		dst, err1 := hexIPv4(f[1])
		gw, err2 := hexIPv4(f[2])
		flags, err3 := strconv.ParseUint(f[3], 16, 32)
		metric, err4 := strconv.ParseInt(f[6], 10, 32)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			return fmt.Errorf("%w: route line %d: %.80q", ErrParse, n, strings.Join(f, " "))
		}
		if flags&rtfUp == 0 || flags&rtfReject != 0 || f[0] == "lo" {
			return nil
		}
		r := &models.Route{Interface: f[0], Destination: dst.String(), Family: models.FamilyIPv4, Metric: int32(metric)}
		if flags&rtfGateway != 0 {
			r.Gateway = gw.String()
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// ParseRoutes6 parses /proc/net/ipv6_route. Local-table, reject and
// multicast routes, and routes on lo, are left out, which leaves what
// netlink lists for the main table.
func ParseRoutes6(b []byte) ([]*models.Route, error) {
	out := []*models.Route{}
	err := eachLine(b, 0, func(n int, f []string) error {
		if len(f) != 10 {
			return fmt.Errorf("%w: ipv6_route line %d has %d fields", ErrParse, n, len(f))
		}
		dst, err1 := hexIPv6(f[0])
		nh, err2 := hexIPv6(f[4])
		metric, err3 := strconv.ParseUint(f[5], 16, 32)
		flags, err4 := strconv.ParseUint(f[8], 16, 32)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			return fmt.Errorf("%w: ipv6_route line %d: %.80q", ErrParse, n, strings.Join(f, " "))
		}
		if flags&rtfUp == 0 || flags&(rtfReject|rtfLocal) != 0 || dst.IsMulticast() || f[9] == "lo" {
			return nil
		}
		r := &models.Route{Interface: f[9], Destination: dst.String(), Family: models.FamilyIPv6, Metric: int32(metric)}
		if !nh.IsUnspecified() {
			r.Gateway = nh.String()
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// eachLine calls fn with the fields of every non-blank line after skip
// header lines.
func eachLine(b []byte, skip int, fn func(n int, f []string) error) error {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		if n <= skip {
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if err := fn(n, f); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrParse, err)
	}
	return nil
}

// hexIPv4 decodes an address as /proc/net/route prints it: the 32-bit
// value in host byte order, as 8 hex digits.
func hexIPv4(s string) (netip.Addr, error) {
	if len(s) != 8 {
		return netip.Addr{}, ErrParse
	}
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		return netip.Addr{}, err
	}
	var a [4]byte
	binary.NativeEndian.PutUint32(a[:], uint32(v))
	return netip.AddrFrom4(a), nil
}

// hexIPv6 decodes 32 hex digits in network order.
func hexIPv6(s string) (netip.Addr, error) {
	var a [16]byte
	if len(s) != 32 {
		return netip.Addr{}, ErrParse
	}
	if _, err := hex.Decode(a[:], []byte(s)); err != nil {
		return netip.Addr{}, err
	}
	return netip.AddrFrom16(a), nil
}

// Routes reads the IPv4 and IPv6 main routing tables from /proc/net.
// A kernel without IPv6 has no ipv6_route, which is not an error.
func (c *Collector) Routes() ([]*models.Route, error) {
	b, err := fs.ReadFile(c.fsys(), "proc/net/route")
	if err != nil {
		return nil, err
	}
	routes, err := ParseRoutes4(b)
	if err != nil {
		return nil, err
	}
	b6, err := fs.ReadFile(c.fsys(), "proc/net/ipv6_route")
	if errors.Is(err, fs.ErrNotExist) {
		return routes, nil
	}
	if err != nil {
		return nil, err
	}
	r6, err := ParseRoutes6(b6)
	if err != nil {
		return nil, err
	}
	return append(routes, r6...), nil
}
