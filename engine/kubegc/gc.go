package kubegc

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/kubekinds"
)

// ownerReference is the part of metav1.OwnerReference the collector reads.
type ownerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion"`
}

// blocks reports whether r holds its owner's foreground deletion.
func (r ownerReference) blocks() bool { return r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion }

// collector keeps, from the change feed, the dependents of each owner
// uid, so that an owner's deletion looks at its dependents only, and the
// owners being deleted that wait for the collector (their orphan or
// foregroundDeletion finalizer).
type collector struct {
	store   engine.Store
	log     *slog.Logger
	deps    map[string]map[string]bool // owner uid → dependent keys
	pending map[string]bool            // keys of the owners that wait
}

// Run collects once, then after the changes that can orphan an object
// (an owner deleted, a dependent written) or that an owner deleted with
// the orphan or foregroundDeletion finalizer waits for (propagate.go),
// until ctx ends (log nil: no log).
func Run(ctx context.Context, store engine.Store, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &collector{store: store, log: log}
	for ctx.Err() == nil {
		sub := store.Subscribe(ctx)
		c.full(ctx)
		for ch := range sub {
			c.changes(ctx, append([]engine.Change{ch}, engine.Queued(sub)...))
		}
	}
	return ctx.Err()
}

// Collect deletes the objects none of whose owners exists, does the work
// of the owners that wait for the collector, and returns how many objects
// it deleted (log nil: no log).
func Collect(ctx context.Context, store engine.Store, log *slog.Logger) int {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return (&collector{store: store, log: log}).full(ctx)
}

// full indexes every object's owners and collects the orphans.
func (c *collector) full(ctx context.Context) int {
	c.deps, c.pending = map[string]map[string]bool{}, map[string]bool{}
	var keys []string
	c.store.Read(func(m *engine.Model) {
		for obj := range m.AllObjects() {
			if len(c.index(obj)) > 0 {
				keys = append(keys, obj.Key())
			}
			c.note(obj)
		}
	})
	n := c.collect(ctx, keys)
	c.propagate(ctx)
	return n
}

// changes indexes the objects written and collects those written and
// the dependents of those deleted.
func (c *collector) changes(ctx context.Context, chs []engine.Change) {
	var keys []string
	for _, ch := range chs {
		switch {
		case ch.Kind == engine.KindAll:
			c.full(ctx)
			return
		case ch.Kind != engine.KindObject || ch.Object == nil:
		case ch.Deleted:
			for k := range c.deps[ch.Object.UID] {
				keys = append(keys, k)
			}
			delete(c.deps, ch.Object.UID)
		default:
			if len(c.index(*ch.Object)) > 0 {
				keys = append(keys, ch.ID)
			}
			c.note(*ch.Object)
		}
	}
	c.collect(ctx, keys)
	c.propagate(ctx)
}

// note records obj as an owner that waits for the collector when it is
// being deleted with the orphan or foregroundDeletion finalizer.
func (c *collector) note(obj engine.Object) {
	if obj.Deleting() && (hasFinalizer(obj, engine.FinalizerOrphan) || hasFinalizer(obj, engine.FinalizerForeground)) {
		c.pending[obj.Key()] = true
	}
}

// index records obj as a dependent of its owners, and returns them.
func (c *collector) index(obj engine.Object) []ownerReference {
	owners := ownersOf(obj)
	for _, r := range owners {
		if c.deps[r.UID] == nil {
			c.deps[r.UID] = map[string]bool{}
		}
		c.deps[r.UID][obj.Key()] = true
	}
	return owners
}

// collect looks at the objects of keys as kube-controller-manager's
// attemptToDeleteItem does: one with an owner that exists (and is not
// deleting its dependents in the foreground) stays, its references to
// owners gone or deleting theirs removed; the others are deleted, in the
// foreground when an owner is and the object has dependents of its own.
// It returns how many it deleted.
func (c *collector) collect(ctx context.Context, keys []string) int {
	if len(keys) == 0 {
		return 0
	}
	var acts []action
	c.store.Read(func(m *engine.Model) {
		for _, k := range keys {
			if obj, ok := m.Object(k); ok && !obj.Deleting() {
				if a, ok := c.decide(m, obj); ok {
					acts = append(acts, a)
				}
			}
		}
	})
	n := 0
	for _, a := range acts {
		if c.act(ctx, a) {
			n++
		}
	}
	return n
}

// ownersOf is obj's metadata.ownerReferences.
func ownersOf(obj engine.Object) []ownerReference {
	if !bytes.Contains(obj.Body, []byte(`"ownerReferences"`)) {
		return nil
	}
	var b struct {
		Metadata struct {
			OwnerReferences []ownerReference `json:"ownerReferences"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(obj.Body, &b)
	return b.Metadata.OwnerReferences
}

// lookup finds owner r of an object of namespace ns (in ns if its kind
// is namespaced, else cluster-scoped); resolvable is false when it cannot
// be looked up (a kind not served, a namespaced owner of a
// cluster-scoped object): such an owner is taken to exist, as
// Kubernetes' collector does with an owner it cannot resolve.
func lookup(m *engine.Model, ns string, r ownerReference) (o engine.Object, found, resolvable bool) {
	group := ""
	if i := strings.LastIndex(r.APIVersion, "/"); i >= 0 {
		group = r.APIVersion[:i]
	}
	k, ok := kubekinds.Lookup(group, r.Kind)
	if !ok {
		return o, false, false
	}
	switch {
	case !k.Namespaced:
		ns = ""
	case ns == "":
		// a cluster-scoped dependent of a namespaced owner: unresolvable
		// (kube-controller-manager's OwnerRefInvalidNamespace), kept
		return o, false, false
	}
	o, found = m.Object(engine.ObjectRef{Group: group, Kind: r.Kind, Namespace: ns, Name: r.Name}.Key())
	return o, found, true
}
