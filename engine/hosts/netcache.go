package hosts

import (
	"slices"
	"sync"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/validation"
)

// netCache keeps each cluster's majority groups and IP collisions until
// one of its hosts' inventories or connectivity reports, its host list or
// its machine networks change: computing them looks at every pair of
// hosts, and every host's evaluation needs them. The maps are shared:
// treat them as read-only.
type netCache struct {
	mu sync.Mutex
	m  map[string]netEntry
}

type netEntry struct {
	key        []docKey
	nets       []string
	groups     map[string][]string
	collisions map[string][]string
}

// docKey identifies the documents of one host by their bytes in the
// model, which stay the same slices until a command replaces them (the
// key keeps them alive, so an address cannot be reused meanwhile).
type docKey struct {
	id              string
	inv, conn       *byte
	invLen, connLen int
}

func firstByte(b []byte) *byte {
	if len(b) == 0 {
		return nil
	}
	return &b[0]
}

// ClusterNets returns the majority groups and IP collisions of cluster c;
// groups is nil until a host of c reported its connectivity.
func (s *Service) ClusterNets(m *engine.Model, c engine.Cluster) (groups, collisions map[string][]string) {
	var (
		key    []docKey
		hosts  []engine.Host
		report bool
	)
	for h := range m.HostsOfCluster(c.ID) {
		key = append(key, docKey{id: h.ID, inv: firstByte(h.Inventory), invLen: len(h.Inventory),
			conn: firstByte(h.Connectivity), connLen: len(h.Connectivity)})
		hosts = append(hosts, h)
		report = report || len(h.Connectivity) > 0
	}
	s.nets.mu.Lock()
	e, ok := s.nets.m[c.ID]
	s.nets.mu.Unlock()
	if ok && slices.Equal(e.key, key) && slices.Equal(e.nets, c.MachineNetworks) {
		return e.groups, e.collisions
	}
	ch := make([]validation.ConnectivityHost, 0, len(hosts))
	for _, h := range hosts {
		ch = append(ch, validation.ConnectivityHost{ID: h.ID, Inventory: s.inv.get(h),
			Connectivity: s.conn.lookup(h.ID, h.Connectivity)})
	}
	if report {
		groups = validation.MajorityGroups(ch, c.MachineNetworks)
	}
	collisions = validation.IPCollisions(ch)
	s.nets.mu.Lock()
	defer s.nets.mu.Unlock()
	if s.nets.m == nil || len(s.nets.m) >= maxCachedDocs {
		s.nets.m = map[string]netEntry{}
	}
	s.nets.m[c.ID] = netEntry{key: key, nets: slices.Clone(c.MachineNetworks), groups: groups, collisions: collisions}
	return groups, collisions
}
