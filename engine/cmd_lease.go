package engine

import (
	"net"
	"net/netip"
	"time"

	"github.com/rackboot/rackboot/dhcp"
)

// LeaseRecord is a DHCP lease as commands and snapshots carry it. An empty
// MAC is a declined address.
type LeaseRecord struct {
	IP       netip.Addr `json:"ip"`
	MAC      string     `json:"mac,omitempty"`
	Hostname string     `json:"hostname,omitempty"`
	Expires  time.Time  `json:"expires"`
}

// RecordOf returns the record of l.
func RecordOf(l dhcp.Lease) LeaseRecord {
	r := LeaseRecord{IP: l.IP, Hostname: l.Hostname, Expires: l.Expires}
	if len(l.MAC) > 0 {
		r.MAC = l.MAC.String()
	}
	return r
}

// Lease returns the lease r records.
func (r LeaseRecord) Lease() (dhcp.Lease, error) {
	if !r.IP.Is4() {
		return dhcp.Lease{}, invalid("lease address %q is not IPv4", r.IP)
	}
	l := dhcp.Lease{IP: r.IP, Hostname: r.Hostname, Expires: r.Expires}
	if r.MAC != "" {
		mac, err := net.ParseMAC(r.MAC)
		if err != nil {
			return dhcp.Lease{}, invalid("lease of %s: MAC %q", r.IP, r.MAC)
		}
		l.MAC = mac
	}
	return l, nil
}

// LeaseCommit stores a batch of leases, in order, each with the replacement
// rules of dhcp.Leases.Commit. An invalid record fails the whole batch.
type LeaseCommit struct {
	Stamp
	Leases []LeaseRecord `json:"leases"`
}

// Type implements Command.
func (*LeaseCommit) Type() Type { return TypeLeaseCommit }

func (c *LeaseCommit) apply(tx *Tx) (any, error) {
	leases := make([]dhcp.Lease, len(c.Leases))
	for i, r := range c.Leases {
		l, err := r.Lease()
		if err != nil {
			return nil, err
		}
		leases[i] = l
	}
	for _, l := range leases {
		tx.putLease(l)
	}
	return nil, nil
}

// LeaseRelease forgets the leases on IPs; a free address is not an error.
type LeaseRelease struct {
	Stamp
	IPs []netip.Addr `json:"ips"`
}

// Type implements Command.
func (*LeaseRelease) Type() Type { return TypeLeaseRelease }

func (c *LeaseRelease) apply(tx *Tx) (any, error) {
	for _, ip := range c.IPs {
		tx.removeLease(ip)
	}
	return nil, nil
}
