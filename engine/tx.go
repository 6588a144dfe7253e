package engine

import (
	"maps"
	"net/netip"
	"time"

	"github.com/rackboot/rackboot/dhcp"
)

// Change says that one object changed at a log index. A Change of KindAll
// (after a snapshot restore) means that anything may have changed.
type Change struct {
	Index   uint64 `json:"index"`
	Kind    Kind   `json:"kind"`
	ID      string `json:"id"`
	Deleted bool   `json:"deleted,omitempty"`
	// Object is, for KindObject, the object as this change left it (as it
	// was, when deleted): a watch sees every state, not only the latest.
	// Stored objects are immutable; do not change it.
	Object *Object `json:"-"`
}

// KindAll is the kind of the Change sent when the whole model was replaced.
const KindAll Kind = "all"

// Tx is one command being applied: the model, the index and time of the
// command, and the changes made so far. Commands check everything first
// and then write through Tx, so a command that fails has changed nothing
// and every write is in the change feed.
type Tx struct {
	m       *Model
	index   uint64
	term    uint64 // raft term of the log entry (0 outside raft)
	at      time.Time
	changes []Change
	quiet   bool // nobody subscribed, or loading a snapshot: no changes
	writes  int  // changes made, recorded or not
	dry     bool // a check (Model.Check): the first write ends it
}

// metaObject is an object that carries Meta.
type metaObject interface{ meta() *Meta }

// put stores v under id in objs, stamping its Meta.
func put[T any, P interface {
	*T
	metaObject
}](tx *Tx, objs map[string]*T, kind Kind, id string, v *T) {
	tx.write()
	meta := P(v).meta()
	if old, ok := objs[id]; ok {
		meta.CreatedAt = P(old).meta().CreatedAt
	} else {
		meta.CreatedAt = tx.at
	}
	meta.UpdatedAt = tx.at
	meta.Revision = tx.index
	objs[id] = v
	tx.changed(kind, id, false)
}

// del removes id from objs.
func del[T any](tx *Tx, objs map[string]*T, kind Kind, id string) {
	tx.write()
	delete(objs, id)
	tx.changed(kind, id, true)
}

func (tx *Tx) changed(kind Kind, id string, deleted bool) {
	tx.writes++
	if kind == KindObject {
		tx.m.objectIndex = tx.index
	}
	if tx.quiet {
		return
	}
	tx.changes = append(tx.changes, Change{Index: tx.index, Kind: kind, ID: id, Deleted: deleted})
}

// attach sets the object of the change just recorded (none when changes
// are not recorded).
func (tx *Tx) attach(o *Object) {
	if n := len(tx.changes); !tx.quiet && n > 0 {
		tx.changes[n-1].Object = o
	}
}

// appendEvent stores e with the next sequence number, dropping the oldest
// event beyond MaxEvents.
func (tx *Tx) appendEvent(e Event) uint64 {
	tx.write()
	m := tx.m
	e.Seq = m.nextEvent
	m.nextEvent++
	if e.Time.IsZero() {
		e.Time = tx.at
	}
	e.Props = maps.Clone(e.Props)
	if len(m.events) >= MaxEvents {
		m.events = m.events[len(m.events)-MaxEvents+1:]
	}
	m.events = append(m.events, &e)
	tx.changed(KindEvent, "", false)
	return e.Seq
}

// putLease stores l with the replacement rules of dhcp.Leases.Commit.
func (tx *Tx) putLease(l dhcp.Lease) {
	tx.write()
	m := tx.m
	tx.removeLease(l.IP)
	if !l.Declined() {
		if old, ok := m.leaseMAC[string(l.MAC)]; ok {
			tx.removeLease(old)
		}
		m.leaseMAC[string(l.MAC)] = l.IP
	}
	m.leases[l.IP] = l
	tx.changed(KindLease, l.IP.String(), false)
}

func (tx *Tx) removeLease(ip netip.Addr) {
	tx.write()
	m := tx.m
	old, ok := m.leases[ip]
	if !ok {
		return
	}
	delete(m.leases, ip)
	if !old.Declined() && m.leaseMAC[string(old.MAC)] == ip {
		delete(m.leaseMAC, string(old.MAC))
	}
	tx.changed(KindLease, ip.String(), true)
}
