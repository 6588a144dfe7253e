package dhcp

import (
	"net/netip"
	"time"
)

// RangeUsage is how much of one configured range is taken.
type RangeUsage struct {
	Range
	Size     uint64 // addresses in the range
	Leased   uint64 // addresses with an active lease
	Declined uint64 // addresses blocked after a client's DHCPDECLINE
}

// Usage returns each configured range's use at now, from the lease
// store; nil in proxy mode (no leases). It reads every lease, so call it
// at scrape time, not per packet.
func (s *Server) Usage(now time.Time) []RangeUsage {
	st := s.st.Load()
	if s.leases == nil || len(st.cfg.Ranges) == 0 {
		return nil
	}
	out := make([]RangeUsage, len(st.cfg.Ranges))
	for i, r := range st.cfg.Ranges {
		out[i] = RangeUsage{Range: r, Size: rangesSize([]Range{r})}
	}
	for l := range s.leases.All() {
		if !l.Active(now) {
			continue
		}
		if i := rangeIndex(st.cfg.Ranges, l.IP); i >= 0 {
			if l.Declined() {
				out[i].Declined++
			} else {
				out[i].Leased++
			}
		}
	}
	return out
}

func rangeIndex(rs []Range, ip netip.Addr) int {
	for i, r := range rs {
		if r.Contains(ip) {
			return i
		}
	}
	return -1
}
