package engine

import (
	"cmp"
	"iter"
	"maps"
	"net"
	"net/netip"
	"slices"

	"github.com/rackboot/rackboot/dhcp"
)

// MaxEvents is how many events the model keeps; older ones are dropped
// first. It is part of the replicated behaviour: changing it changes what a
// replayed log produces, so it is a constant, not a setting.
const MaxEvents = 100_000

// Model is the whole replicated state. Read it through Store.Read (or a
// clone); change it only through commands. The values its accessors return
// share slices and maps with the model: treat them as read-only.
type Model struct {
	index     uint64 // log index of the last applied command
	infraEnvs map[string]*InfraEnv
	clusters  map[string]*Cluster
	hosts     map[string]*Host
	hostIdx   hostIndex // hosts by cluster and by infra-env
	nmstate   map[string]*NMStateConfig
	imageSets map[string]*ImageSet
	secrets   map[string]*Secret
	bmhs      map[string]*BareMetalHost
	objects   map[string]*Object // by ObjectRef.Key
	objIdx    objIndex           // object keys by group and kind
	leases    map[netip.Addr]dhcp.Lease
	leaseMAC  map[string]netip.Addr // string(mac) → ip, bound leases only
	// events is append-only apart from dropping its head, so a clone may
	// share its backing array: the live model only writes past the clone's
	// length.
	events    []*Event
	nextEvent uint64
	// objectIndex is the log index of the last change of objects (not
	// replicated state: 0 after a snapshot is loaded).
	objectIndex uint64
	// sealer opens sealed secret values for readers (sealstore.go); it is
	// the appliance's key, not replicated state.
	sealer *Sealer
}

// NewModel returns an empty model.
func NewModel() *Model {
	return &Model{
		infraEnvs: map[string]*InfraEnv{},
		clusters:  map[string]*Cluster{},
		hosts:     map[string]*Host{},
		hostIdx:   newHostIndex(),
		nmstate:   map[string]*NMStateConfig{},
		imageSets: map[string]*ImageSet{},
		secrets:   map[string]*Secret{},
		bmhs:      map[string]*BareMetalHost{},
		objects:   map[string]*Object{},
		objIdx:    objIndex{},
		leases:    map[netip.Addr]dhcp.Lease{},
		leaseMAC:  map[string]netip.Addr{},
		nextEvent: 1,
	}
}

// Clone returns a copy that later commands on m do not change. Objects are
// immutable once stored, so only the maps are copied.
func (m *Model) Clone() *Model {
	c := *m
	c.infraEnvs = maps.Clone(m.infraEnvs)
	c.clusters = maps.Clone(m.clusters)
	c.hosts = maps.Clone(m.hosts)
	c.hostIdx = m.hostIdx.clone()
	c.nmstate = maps.Clone(m.nmstate)
	c.imageSets = maps.Clone(m.imageSets)
	c.secrets = maps.Clone(m.secrets)
	c.bmhs = maps.Clone(m.bmhs)
	c.objects = cloneObjects(m.objects)
	c.objIdx = m.objIdx.clone()
	c.leases = maps.Clone(m.leases)
	c.leaseMAC = maps.Clone(m.leaseMAC)
	c.events = slices.Clip(m.events)
	return &c
}

// Index is the log index of the last command applied to m.
func (m *Model) Index() uint64 { return m.index }

// InfraEnv returns the infra-env with id.
func (m *Model) InfraEnv(id string) (InfraEnv, bool) { return get(m.infraEnvs, id) }

// InfraEnvs yields every infra-env in id order.
func (m *Model) InfraEnvs() iter.Seq[InfraEnv] { return sorted(m.infraEnvs) }

// Cluster returns the cluster with id.
func (m *Model) Cluster(id string) (Cluster, bool) { return get(m.clusters, id) }

// Clusters yields every cluster in id order.
func (m *Model) Clusters() iter.Seq[Cluster] { return sorted(m.clusters) }

// Host returns the host with id.
func (m *Model) Host(id string) (Host, bool) { return get(m.hosts, id) }

// Hosts yields every host in id order.
func (m *Model) Hosts() iter.Seq[Host] { return sorted(m.hosts) }

// NMStateConfig returns the NMState config named name.
func (m *Model) NMStateConfig(name string) (NMStateConfig, bool) { return get(m.nmstate, name) }

// NMStateConfigs yields every NMState config in name order.
func (m *Model) NMStateConfigs() iter.Seq[NMStateConfig] { return sorted(m.nmstate) }

// ImageSet returns the image set named name.
func (m *Model) ImageSet(name string) (ImageSet, bool) { return get(m.imageSets, name) }

// ImageSets yields every image set in name order.
func (m *Model) ImageSets() iter.Seq[ImageSet] { return sorted(m.imageSets) }

// Secret returns the secret named name.
func (m *Model) Secret(name string) (Secret, bool) { return get(m.secrets, name) }

// Secrets yields every secret in name order.
func (m *Model) Secrets() iter.Seq[Secret] { return sorted(m.secrets) }

// LeaseByIP returns the lease on ip.
func (m *Model) LeaseByIP(ip netip.Addr) (dhcp.Lease, bool) {
	l, ok := m.leases[ip]
	return l, ok
}

// LeaseByMAC returns the bound lease of mac.
func (m *Model) LeaseByMAC(mac net.HardwareAddr) (dhcp.Lease, bool) {
	ip, ok := m.leaseMAC[string(mac)]
	if !ok {
		return dhcp.Lease{}, false
	}
	return m.leases[ip], true
}

// Leases yields every lease in no particular order.
func (m *Model) Leases() iter.Seq[dhcp.Lease] { return maps.Values(m.leases) }

// LeaseCount returns the number of leases.
func (m *Model) LeaseCount() int { return len(m.leases) }

// Events yields the kept events with Seq > after, oldest first.
func (m *Model) Events(after uint64) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		i, _ := slices.BinarySearchFunc(m.events, after+1, func(e *Event, seq uint64) int {
			return cmp.Compare(e.Seq, seq)
		})
		for _, e := range m.events[i:] {
			if !yield(*e) {
				return
			}
		}
	}
}

func get[T any](objs map[string]*T, id string) (T, bool) {
	p, ok := objs[id]
	if !ok {
		var zero T
		return zero, false
	}
	return *p, true
}

func sorted[T any](objs map[string]*T) iter.Seq[T] {
	return func(yield func(T) bool) {
		for _, k := range slices.Sorted(maps.Keys(objs)) {
			if !yield(*objs[k]) {
				return
			}
		}
	}
}
