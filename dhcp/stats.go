package dhcp

import "sync/atomic"

// Stats are the server's counters since New.
type Stats struct {
	Received         uint64 // packets read
	Replied          uint64 // replies sent
	DroppedMalformed uint64 // undecodable or invalid packets
	DroppedOther     uint64 // valid packets not answered for another reason
	Exhausted        uint64 // DISCOVERs left unanswered for want of a free address
	Offers           uint64
	Acks             uint64
	Naks             uint64
	Releases         uint64
	Declines         uint64
}

type counters struct {
	received, replied, malformed, dropped, exhausted atomic.Uint64
	offers, acks, naks, releases, declines           atomic.Uint64
}

// Stats returns a snapshot of the counters.
func (s *Server) Stats() Stats {
	c := &s.stats
	return Stats{
		Received:         c.received.Load(),
		Replied:          c.replied.Load(),
		DroppedMalformed: c.malformed.Load(),
		DroppedOther:     c.dropped.Load(),
		Exhausted:        c.exhausted.Load(),
		Offers:           c.offers.Load(),
		Acks:             c.acks.Load(),
		Naks:             c.naks.Load(),
		Releases:         c.releases.Load(),
		Declines:         c.declines.Load(),
	}
}
