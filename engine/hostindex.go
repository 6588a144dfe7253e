package engine

import (
	"iter"
	"maps"
	"slices"
)

// hostIndex lists host ids by cluster and by infra-env, each list sorted.
// A list is never changed in place (a change makes a new one), so clones
// of the model share the lists safely; a change costs the length of the
// one list it touches.
type hostIndex struct {
	byCluster  map[string][]string
	byInfraEnv map[string][]string
}

func newHostIndex() hostIndex {
	return hostIndex{byCluster: map[string][]string{}, byInfraEnv: map[string][]string{}}
}

func (x hostIndex) clone() hostIndex {
	return hostIndex{byCluster: maps.Clone(x.byCluster), byInfraEnv: maps.Clone(x.byInfraEnv)}
}

// move updates the index for a host going from old to new (nil: absent).
func (x hostIndex) move(old, new *Host) {
	var oldCluster, oldIE, newCluster, newIE string
	if old != nil {
		oldCluster, oldIE = old.ClusterID, old.InfraEnvID
	}
	if new != nil {
		newCluster, newIE = new.ClusterID, new.InfraEnvID
	}
	id := ""
	switch {
	case new != nil:
		id = new.ID
	case old != nil:
		id = old.ID
	}
	relist(x.byCluster, id, oldCluster, newCluster)
	relist(x.byInfraEnv, id, oldIE, newIE)
}

// relist moves id from list from to list to ("" : none).
func relist(lists map[string][]string, id, from, to string) {
	if from == to {
		return
	}
	if from != "" {
		old := lists[from]
		if i, ok := slices.BinarySearch(old, id); ok {
			l := make([]string, 0, len(old)-1)
			l = append(append(l, old[:i]...), old[i+1:]...)
			if len(l) == 0 {
				delete(lists, from)
			} else {
				lists[from] = l
			}
		}
	}
	if to != "" {
		old := lists[to]
		if i, ok := slices.BinarySearch(old, id); !ok {
			l := make([]string, 0, len(old)+1)
			l = append(append(append(l, old[:i]...), id), old[i:]...)
			lists[to] = l
		}
	}
}

// indexHosts builds the index of hosts.
func indexHosts(hosts map[string]*Host) hostIndex {
	x := newHostIndex()
	for _, id := range slices.Sorted(maps.Keys(hosts)) {
		h := hosts[id]
		if h.ClusterID != "" {
			x.byCluster[h.ClusterID] = append(x.byCluster[h.ClusterID], id)
		}
		if h.InfraEnvID != "" {
			x.byInfraEnv[h.InfraEnvID] = append(x.byInfraEnv[h.InfraEnvID], id)
		}
	}
	return x
}

// putHost stores h, keeping the host index.
func (tx *Tx) putHost(h *Host) {
	tx.write()
	tx.m.hostIdx.move(tx.m.hosts[h.ID], h)
	put(tx, tx.m.hosts, KindHost, h.ID, h)
}

// delHost removes host id, keeping the host index.
func (tx *Tx) delHost(id string) {
	tx.write()
	tx.m.hostIdx.move(tx.m.hosts[id], nil)
	del(tx, tx.m.hosts, KindHost, id)
}

// HostsOfCluster yields the hosts bound to cluster id, in id order.
func (m *Model) HostsOfCluster(id string) iter.Seq[Host] { return m.listed(m.hostIdx.byCluster[id]) }

// HostsOfInfraEnv yields the hosts registered from infra-env id, in id
// order.
func (m *Model) HostsOfInfraEnv(id string) iter.Seq[Host] { return m.listed(m.hostIdx.byInfraEnv[id]) }

// ClusterHostCount is the number of hosts bound to cluster id.
func (m *Model) ClusterHostCount(id string) int { return len(m.hostIdx.byCluster[id]) }

func (m *Model) listed(ids []string) iter.Seq[Host] {
	return func(yield func(Host) bool) {
		for _, id := range ids {
			if !yield(*m.hosts[id]) {
				return
			}
		}
	}
}
