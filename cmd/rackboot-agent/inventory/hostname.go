package inventory

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

// forbiddenHostnames are names every unconfigured host has; upstream's
// agent replaces them so that hosts can be told apart.
var forbiddenHostnames = []string{
	"localhost", "localhost.localdomain", "localhost4", "localhost4.localdomain4",
	"localhost6", "localhost6.localdomain6",
}

// ReplaceForbiddenHostname returns hostname unless it is a localhost name;
// then it returns the MAC address, lower case with dashes, of the first
// interface by name that is physical, a VLAN or a bond and has a global
// address (upstream's rule), or hostname when there is none.
func ReplaceForbiddenHostname(hostname string, ifs []*models.Interface) string {
	if !slices.Contains(forbiddenHostnames, hostname) {
		return hostname
	}
	sorted := slices.Clone(ifs)
	slices.SortFunc(sorted, func(a, b *models.Interface) int { return strings.Compare(a.Name, b.Name) })
	for _, nic := range sorted {
		if nic.Type != "physical" && nic.Type != "vlan" && nic.Type != "bond" || nic.MacAddress == "" {
			continue
		}
		if hasGlobal(nic.IPV4Addresses) || hasGlobal(nic.IPV6Addresses) {
			return strings.ToLower(strings.ReplaceAll(nic.MacAddress, ":", "-"))
		}
	}
	return hostname
}

func hasGlobal(cidrs []string) bool {
	for _, c := range cidrs {
		if p, err := netip.ParsePrefix(c); err == nil && p.Addr().IsGlobalUnicast() {
			return true
		}
	}
	return false
}
