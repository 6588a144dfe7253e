package kubegc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/kubekinds"
)

// ownerReference is the part of metav1.OwnerReference the collector reads.
type ownerReference struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
}

// collector keeps, from the change feed, the dependents of each owner
// uid, so that an owner's deletion looks at its dependents only.
type collector struct {
	store engine.Store
	log   *slog.Logger
	deps  map[string]map[string]bool // owner uid → dependent keys
}

// Run collects once, then after the changes that can orphan an object
// (an owner deleted, a dependent written), until ctx ends (log nil: no
// log).
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

// Collect deletes the objects none of whose owners exists, and returns
// how many it deleted (log nil: no log).
func Collect(ctx context.Context, store engine.Store, log *slog.Logger) int {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return (&collector{store: store, log: log}).full(ctx)
}

// full indexes every object's owners and collects the orphans.
func (c *collector) full(ctx context.Context) int {
	c.deps = map[string]map[string]bool{}
	var keys []string
	c.store.Read(func(m *engine.Model) {
		for obj := range m.AllObjects() {
			if len(c.index(obj)) > 0 {
				keys = append(keys, obj.Key())
			}
		}
	})
	return c.collect(ctx, keys)
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
		case len(c.index(*ch.Object)) > 0:
			keys = append(keys, ch.ID)
		}
	}
	c.collect(ctx, keys)
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

// collect deletes the objects of keys none of whose owners exists.
func (c *collector) collect(ctx context.Context, keys []string) int {
	if len(keys) == 0 {
		return 0
	}
	var orphans []engine.Object
	c.store.Read(func(m *engine.Model) {
		for _, k := range keys {
			if obj, ok := m.Object(k); ok && !obj.Deleting() && orphaned(m, obj) {
				orphans = append(orphans, obj)
			}
		}
	})
	n := 0
	for _, obj := range orphans {
		_, err := c.store.Apply(ctx, &engine.DeleteObject{Ref: obj.ObjectRef, IfRevision: obj.Revision})
		switch {
		case err == nil:
			n++
			c.log.Info("object whose owners are gone deleted", "object", obj.Key())
		case !errors.Is(err, engine.ErrNotFound) && !errors.Is(err, engine.ErrConflict) && ctx.Err() == nil:
			// changed meanwhile: its change is looked at next
			c.log.Warn("object whose owners are gone not deleted", "object", obj.Key(), "err", err)
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

// orphaned reports whether obj names owners and none of them exists.
func orphaned(m *engine.Model, obj engine.Object) bool {
	owners := ownersOf(obj)
	for _, r := range owners {
		if exists(m, obj.Namespace, r) {
			return false
		}
	}
	return len(owners) > 0
}

// exists reports whether owner r of an object of namespace ns exists
// (in ns if its kind is namespaced, else cluster-scoped) with r's uid, or
// is of a kind not served: an owner that cannot be looked up is taken to
// exist, as Kubernetes' collector does with an owner it cannot resolve.
func exists(m *engine.Model, ns string, r ownerReference) bool {
	group := ""
	if i := strings.LastIndex(r.APIVersion, "/"); i >= 0 {
		group = r.APIVersion[:i]
	}
	k, ok := kubekinds.Lookup(group, r.Kind)
	if !ok {
		return true
	}
	switch {
	case !k.Namespaced:
		ns = ""
	case ns == "":
		// a cluster-scoped dependent of a namespaced owner: unresolvable
		// (kube-controller-manager's OwnerRefInvalidNamespace), kept
		return true
	}
	o, ok := m.Object(engine.ObjectRef{Group: group, Kind: r.Kind, Namespace: ns, Name: r.Name}.Key())
	return ok && (r.UID == "" || o.UID == r.UID)
}
