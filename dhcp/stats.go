package dhcp

import (
	"sync/atomic"

	"github.com/insomniacslk/dhcp/dhcpv4"
)

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
	// Requests counts the packets read by message type and outcome; only
	// the pairs seen so far are listed, in a fixed order.
	Requests []RequestCount
}

// RequestCount is how many packets of one message type ended one way.
type RequestCount struct {
	Type    string // DISCOVER, REQUEST, ... ("unknown" when undecodable or unnamed)
	Outcome Outcome
	N       uint64
}

// Outcome is what became of a packet read.
type Outcome int

// The outcomes of a packet, for Stats.Requests.
const (
	OutcomeReplied   Outcome = iota // a reply was sent
	OutcomeIgnored                  // handled without a reply (RELEASE, another server chosen, not a PXE client in proxy mode)
	OutcomeMalformed                // undecodable or invalid
	OutcomeExhausted                // no free address to offer
	OutcomeRelay                    // a relayed packet this server does not answer
	OutcomeError                    // the lease store or the socket failed
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"replied", "ignored", "malformed", "exhausted", "relay", "error"}

// String is the outcome's label value.
func (o Outcome) String() string {
	if o < 0 || o >= numOutcomes {
		return "unknown"
	}
	return outcomeNames[o]
}

// numTypes is the DHCP message types counted by name (1 DISCOVER to 8
// INFORM); index 0 counts every other packet.
const numTypes = 9

type counters struct {
	received, replied, malformed, dropped, exhausted atomic.Uint64
	offers, acks, naks, releases, declines           atomic.Uint64
	byType                                           [numTypes][numOutcomes]atomic.Uint64
}

// count records one packet of message type mt (nil: undecodable) ending
// with o.
func (c *counters) count(mt *dhcpv4.MessageType, o Outcome) {
	i := 0
	if mt != nil && *mt >= dhcpv4.MessageTypeDiscover && *mt <= dhcpv4.MessageTypeInform {
		i = int(*mt)
	}
	c.byType[i][o].Add(1)
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
		Requests:         c.requests(),
	}
}

func (c *counters) requests() []RequestCount {
	var out []RequestCount
	for i := range numTypes {
		name := "unknown"
		if i > 0 {
			name = dhcpv4.MessageType(i).String()
		}
		for o := range numOutcomes {
			if n := c.byType[i][o].Load(); n > 0 {
				out = append(out, RequestCount{Type: name, Outcome: o, N: n})
			}
		}
	}
	return out
}
