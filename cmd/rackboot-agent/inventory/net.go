package inventory

import (
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

// NetInterface is what the collector needs to know about one interface
// beyond sysfs: its addresses and flags as the kernel reports them.
type NetInterface struct {
	Name         string
	MTU          int
	HardwareAddr net.HardwareAddr
	Flags        net.Flags
	Addrs        []netip.Prefix
}

// Net lists the host's network interfaces.
type Net interface {
	Interfaces() ([]NetInterface, error)
}

// SystemNet lists the real interfaces through net.Interfaces.
type SystemNet struct{}

// Interfaces implements Net.
func (SystemNet) Interfaces() ([]NetInterface, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("list interfaces: %w", err)
	}
	out := make([]NetInterface, 0, len(ifs))
	for _, ifc := range ifs {
		addrs, err := ifc.Addrs()
		if err != nil {
			return nil, fmt.Errorf("addresses of %s: %w", ifc.Name, err)
		}
		ni := NetInterface{Name: ifc.Name, MTU: ifc.MTU, HardwareAddr: ifc.HardwareAddr, Flags: ifc.Flags}
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok {
				ip, _ := netip.AddrFromSlice(ipn.IP)
				ones, _ := ipn.Mask.Size()
				ni.Addrs = append(ni.Addrs, netip.PrefixFrom(ip.Unmap(), ones))
			}
		}
		out = append(out, ni)
	}
	return out, nil
}

// FixedNet is a Net that returns a fixed list (for tests).
type FixedNet []NetInterface

// Interfaces implements Net.
func (f FixedNet) Interfaces() ([]NetInterface, error) { return f, nil }

// Interfaces reports every interface except loopback: addresses and flags
// from Net, the rest from /sys/class/net/<name> (carrier, speed, PCI vendor
// and device ids, the permanent MAC of a bond slave, physical or virtual).
// Link-local addresses are left out, as upstream does.
func (c *Collector) Interfaces() ([]*models.Interface, error) {
	ifs, err := c.net().Interfaces()
	if err != nil {
		return nil, err
	}
	out := make([]*models.Interface, 0, len(ifs))
	for _, ni := range ifs {
		if ni.Flags&net.FlagLoopback != 0 || ni.Name == "lo" {
			continue
		}
		out = append(out, c.netInterface(ni))
	}
	return out, nil
}

func (c *Collector) netInterface(ni NetInterface) *models.Interface {
	fsys, dir := c.fsys(), "sys/class/net/"+ni.Name
	rec := &models.Interface{
		Name:          ni.Name,
		Mtu:           int64(ni.MTU),
		Flags:         flagNames(ni.Flags),
		MacAddress:    ni.HardwareAddr.String(),
		HasCarrier:    readOptional(fsys, dir+"/carrier") == "1",
		Vendor:        readOptional(fsys, dir+"/device/vendor"),
		Product:       readOptional(fsys, dir+"/device/device"),
		Type:          c.linkType(ni.Name),
		IPV4Addresses: []string{},
		IPV6Addresses: []string{},
	}
	if perm := readOptional(fsys, dir+"/bonding_slave/perm_hwaddr"); perm != "" {
		rec.MacAddress = perm
	}
	if speed, err := strconv.ParseInt(readOptional(fsys, dir+"/speed"), 10, 32); err == nil {
		rec.SpeedMbps = speed // -1 when the driver does not know, as upstream sends it
	}
	for _, p := range ni.Addrs {
		switch {
		case p.Addr().IsLinkLocalUnicast():
		case p.Addr().Is4():
			rec.IPV4Addresses = append(rec.IPV4Addresses, p.String())
		case p.Addr().Is6():
			rec.IPV6Addresses = append(rec.IPV6Addresses, p.String())
		}
	}
	return rec
}

// flagNames spells flags as upstream does: net.Flags.String split on "|".
func flagNames(f net.Flags) []string {
	if f == 0 {
		return []string{}
	}
	return strings.Split(f.String(), "|")
}

// linkType is "physical" unless sysfs places the device under
// /devices/virtual; then it is the uevent DEVTYPE (bond, vlan, bridge, ...)
// or "device". Like upstream, an unreadable link counts as physical.
func (c *Collector) linkType(name string) string {
	target, err := fs.ReadLink(c.fsys(), "sys/class/net/"+name)
	if err != nil || !strings.Contains(target, "/virtual/") {
		return "physical"
	}
	ev, _ := fs.ReadFile(c.fsys(), "sys/class/net/"+name+"/uevent")
	for _, line := range strings.Split(string(ev), "\n") {
		if t, ok := strings.CutPrefix(line, "DEVTYPE="); ok && t != "" {
			return t
		}
	}
	return "device"
}
