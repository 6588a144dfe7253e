package bootsel

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync"

	"github.com/rackboot/rackboot/engine"
)

// macKey is a MAC as a map key.
type macKey [6]byte

func keyOf(mac net.HardwareAddr) (macKey, bool) {
	var k macKey
	if len(mac) != 6 {
		return k, false
	}
	copy(k[:], mac)
	return k, true
}

// parseKey reads a MAC written in a model object (any case, ':' or '-').
func parseKey(s string) (macKey, bool) {
	hw, err := net.ParseMAC(strings.TrimSpace(s))
	if err != nil {
		return macKey{}, false
	}
	return keyOf(hw)
}

// macIndex maps MACs to the objects of the model that name them: the hosts
// whose inventory lists the MAC and the NMState configs whose interfaces
// do. It keeps the reverse maps so that an object's old MACs can be
// dropped when it changes.
type macIndex struct {
	hosts    map[macKey][]string // MAC → host ids
	hostMACs map[string][]macKey
	// hostInv is the inventory each host's MACs were read from: a host
	// changes ten times or more for every time its inventory does, and
	// the inventory is only decoded again when it changed.
	hostInv map[string]json.RawMessage
	nmstate map[macKey][]string // MAC → NMState config names
	nmMACs  map[string][]macKey
}

func newMACIndex() *macIndex {
	return &macIndex{
		hosts: map[macKey][]string{}, hostMACs: map[string][]macKey{}, hostInv: map[string]json.RawMessage{},
		nmstate: map[macKey][]string{}, nmMACs: map[string][]macKey{},
	}
}

// buildIndex indexes every host and NMState config of m.
func buildIndex(m *engine.Model) *macIndex {
	ix := newMACIndex()
	for h := range m.Hosts() {
		ix.setHostInventory(h.ID, h.Inventory)
	}
	for n := range m.NMStateConfigs() {
		ix.setNMState(n.Name, nmstateMACs(n))
	}
	return ix
}

// inventory is the part of an agent inventory the index reads.
type inventory struct {
	Interfaces []struct {
		MACAddress string `json:"mac_address"`
	} `json:"interfaces"`
}

// inventoryMACs lists the MACs of an inventory's interfaces; an inventory
// that does not decode has none.
func inventoryMACs(raw json.RawMessage) []macKey {
	if len(raw) == 0 {
		return nil
	}
	var inv inventory
	if err := json.Unmarshal(raw, &inv); err != nil {
		return nil
	}
	var out []macKey
	for _, nic := range inv.Interfaces {
		if k, ok := parseKey(nic.MACAddress); ok {
			out = append(out, k)
		}
	}
	return out
}

func nmstateMACs(n engine.NMStateConfig) []macKey {
	var out []macKey
	for _, i := range n.Interfaces {
		if k, ok := parseKey(i.MAC); ok {
			out = append(out, k)
		}
	}
	return out
}

func (ix *macIndex) setHost(id string, macs []macKey) {
	unlink(ix.hosts, ix.hostMACs, id)
	link(ix.hosts, ix.hostMACs, id, macs)
}

// setHostInventory indexes host id by the MACs of inv, decoding inv only
// when it differs from the inventory the host was last indexed with.
func (ix *macIndex) setHostInventory(id string, inv json.RawMessage) {
	if old, ok := ix.hostInv[id]; ok && bytes.Equal(old, inv) {
		return
	}
	ix.setHost(id, inventoryMACs(inv))
	ix.hostInv[id] = inv
}

// dropHost removes host id from the index.
func (ix *macIndex) dropHost(id string) {
	unlink(ix.hosts, ix.hostMACs, id)
	delete(ix.hostInv, id)
}

func (ix *macIndex) setNMState(name string, macs []macKey) {
	unlink(ix.nmstate, ix.nmMACs, name)
	link(ix.nmstate, ix.nmMACs, name, macs)
}

func link(fwd map[macKey][]string, rev map[string][]macKey, id string, macs []macKey) {
	if len(macs) == 0 {
		return
	}
	rev[id] = macs
	for _, k := range macs {
		fwd[k] = append(fwd[k], id)
	}
}

func unlink(fwd map[macKey][]string, rev map[string][]macKey, id string) {
	for _, k := range rev[id] {
		ids := fwd[k]
		out := ids[:0:0]
		for _, x := range ids {
			if x != id {
				out = append(out, x)
			}
		}
		if len(out) == 0 {
			delete(fwd, k)
		} else {
			fwd[k] = out
		}
	}
	delete(rev, id)
}

// update reads from m what change c did and returns the edit that brings
// the index up to date; it runs under the model's read lock, the edit
// under the index's lock (never both at once).
func update(m *engine.Model, c engine.Change) func(ix *macIndex) *macIndex {
	switch c.Kind {
	case engine.KindAll:
		fresh := buildIndex(m)
		return func(*macIndex) *macIndex { return fresh }
	case engine.KindHost:
		h, ok := m.Host(c.ID)
		if !ok {
			return func(ix *macIndex) *macIndex { ix.dropHost(c.ID); return ix }
		}
		// The model's inventory bytes are never written in place, so the
		// index may keep them to compare with the next change.
		inv := h.Inventory
		return func(ix *macIndex) *macIndex { ix.setHostInventory(c.ID, inv); return ix }
	case engine.KindNMStateConfig:
		var macs []macKey
		if n, ok := m.NMStateConfig(c.ID); ok {
			macs = nmstateMACs(n)
		}
		return func(ix *macIndex) *macIndex { ix.setNMState(c.ID, macs); return ix }
	}
	return nil
}

// liveIndex is the index that Run keeps current by following the store's
// change feed; nil while Run is not following it.
type liveIndex struct {
	mu sync.RWMutex
	ix *macIndex
}

func (l *liveIndex) get() *macIndex {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.ix
}

func (l *liveIndex) set(ix *macIndex) {
	l.mu.Lock()
	l.ix = ix
	l.mu.Unlock()
}

// lookup calls fn with the current index, or with one built from m when
// Run is not following the store. m is read-locked by the caller.
func (l *liveIndex) lookup(m *engine.Model, fn func(ix *macIndex)) {
	l.mu.RLock()
	ix := l.ix
	if ix != nil {
		defer l.mu.RUnlock()
		fn(ix)
		return
	}
	l.mu.RUnlock()
	fn(buildIndex(m))
}

// follow keeps the index current until ctx ends: it subscribes, builds the
// index from a full read, then applies every host and NMState change. When
// the feed drops it (it fell behind) it starts again.
func (l *liveIndex) follow(ctx context.Context, st engine.Store) {
	defer l.set(nil)
	for ctx.Err() == nil {
		l.followOnce(ctx, st)
	}
}

func (l *liveIndex) followOnce(ctx context.Context, st engine.Store) {
	sub, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := st.Subscribe(sub)
	var (
		ix   *macIndex
		seen uint64
	)
	st.Read(func(m *engine.Model) { ix, seen = buildIndex(m), m.Index() })
	l.set(ix)
	for c := range ch {
		if c.Index <= seen && c.Kind != engine.KindAll {
			continue
		}
		var edit func(*macIndex) *macIndex
		st.Read(func(m *engine.Model) { edit = update(m, c) })
		if edit == nil {
			continue
		}
		l.mu.Lock()
		l.ix = edit(l.ix)
		l.mu.Unlock()
	}
}
