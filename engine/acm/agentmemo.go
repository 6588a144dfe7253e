package acm

// agentMemo remembers, per host, the revisions of what an Agent's
// reconciliation read (the host, its Agent and their InfraEnv) when it
// last ended without an error: as long as none of them has changed, a
// reconciliation again would decode the Agent to find nothing to do. A
// full pass (after an InfraEnv's, a cluster's or a BareMetalHost's
// change, or when the change feed dropped the controller for lagging
// behind) so costs a comparison of revisions per unchanged Agent, not a
// decoding. A write bumps the revision it wrote, so what wrote is
// reconciled again on the next pass (and then remembered).
//
// Everything reconcileAgent reads must be in revs: it reads the host and
// the Agent (the InfraEnv only to create one).
type agentMemo struct {
	seen map[string]revs // host id → revisions last reconciled
}

// revs are the revisions an Agent's reconciliation read.
type revs struct {
	host, agent, infraEnv uint64
}

func newAgentMemo() *agentMemo { return &agentMemo{seen: map[string]revs{}} }

// pairRevs are the revisions p's reconciliation reads (ok false: p has no
// Agent yet, never remembered).
func pairRevs(p agentPair) (revs, bool) {
	return revs{host: p.host.Revision, agent: p.agent.Revision, infraEnv: p.ie.Revision}, p.ok
}

// unchanged reports whether p was reconciled at these revisions already.
func (m *agentMemo) unchanged(p agentPair) bool {
	if m == nil {
		return false
	}
	r, ok := pairRevs(p)
	return ok && m.seen[p.host.ID] == r
}

// done remembers p's revisions after a reconciliation without error.
func (m *agentMemo) done(p agentPair) {
	if r, ok := pairRevs(p); m != nil && ok {
		m.seen[p.host.ID] = r
	}
}

// keepOnly forgets the hosts a full pass no longer found.
func (m *agentMemo) keepOnly(hosts map[string]bool) {
	if m == nil {
		return
	}
	for id := range m.seen {
		if !hosts[id] {
			delete(m.seen, id)
		}
	}
}
