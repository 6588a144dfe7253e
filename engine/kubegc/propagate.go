package kubegc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/rackboot/rackboot/engine"
)

// propagate does the work of the owners being deleted that wait for the
// collector, as kube-controller-manager's: an owner with the orphan
// finalizer has its references removed from its dependents, then the
// finalizer (attemptToOrphan); one with the foregroundDeletion finalizer
// has its dependents collected, and the finalizer removed once none that
// blocks its deletion (blockOwnerDeletion) is left
// (processDeletingDependentsItem). A write refused because an object
// changed is done again after that change.
func (c *collector) propagate(ctx context.Context) {
	for _, key := range slices.Sorted(maps.Keys(c.pending)) {
		var owner engine.Object
		var deps []engine.Object
		var ok bool
		c.store.Read(func(m *engine.Model) {
			if owner, ok = m.Object(key); ok {
				deps = c.dependents(m, owner)
			}
		})
		var err error
		switch {
		case !ok || !owner.Deleting():
			delete(c.pending, key)
		case hasFinalizer(owner, engine.FinalizerOrphan):
			err = c.orphan(ctx, owner, deps)
		case hasFinalizer(owner, engine.FinalizerForeground):
			err = c.foreground(ctx, owner, deps)
		default:
			delete(c.pending, key)
		}
		if err != nil && !errors.Is(err, engine.ErrNotFound) && !errors.Is(err, engine.ErrConflict) && ctx.Err() == nil {
			c.log.Warn("dependents of a deleted owner not handled", "object", key, "err", err)
		}
	}
}

// orphan removes owner's references from deps, then its orphan finalizer.
func (c *collector) orphan(ctx context.Context, owner engine.Object, deps []engine.Object) error {
	for _, d := range deps {
		if err := c.dropOwners(ctx, d, []string{owner.UID}); err != nil && !errors.Is(err, engine.ErrNotFound) {
			return err
		}
		c.log.Info("dependent orphaned", "object", d.Key(), "owner", owner.Key())
	}
	return c.removeFinalizer(ctx, owner, engine.FinalizerOrphan)
}

// foreground collects deps (their owner waits, so they go unless another
// owner keeps them), then removes owner's foregroundDeletion finalizer if
// no dependent that blocks it is left.
func (c *collector) foreground(ctx context.Context, owner engine.Object, deps []engine.Object) error {
	keys := make([]string, len(deps))
	for i, d := range deps {
		keys[i] = d.Key()
	}
	c.collect(ctx, keys)
	blocked := false
	c.store.Read(func(m *engine.Model) {
		cur, ok := m.Object(owner.Key())
		if !ok || cur.UID != owner.UID {
			return
		}
		owner = cur
		for _, d := range c.dependents(m, owner) {
			for _, r := range ownersOf(d) {
				blocked = blocked || (r.UID == owner.UID && r.blocks())
			}
		}
	})
	if blocked {
		return nil
	}
	return c.removeFinalizer(ctx, owner, engine.FinalizerForeground)
}

// removeFinalizer writes owner without finalizer f (the last one removed,
// it goes).
func (c *collector) removeFinalizer(ctx context.Context, owner engine.Object, f string) error {
	fs := slices.DeleteFunc(owner.Finalizers(), func(x string) bool { return x == f })
	o, err := owner.WithFinalizers(fs)
	if err != nil {
		return err
	}
	if _, err := c.store.Apply(ctx, &engine.PutObject{Object: o, IfRevision: owner.Revision}); err != nil {
		return fmt.Errorf("removing the %s finalizer of %s: %w", f, owner.Key(), err)
	}
	c.log.Info("finalizer removed, dependents handled", "object", owner.Key(), "finalizer", f)
	return nil
}

// dropOwners writes obj without its ownerReferences to the uids drop.
func (c *collector) dropOwners(ctx context.Context, obj engine.Object, drop []string) error {
	var top, md map[string]json.RawMessage
	var refs []json.RawMessage
	if err := json.Unmarshal(obj.Body, &top); err != nil {
		return fmt.Errorf("object %s: %w", obj.Key(), err)
	}
	if err := json.Unmarshal(top["metadata"], &md); err != nil {
		return fmt.Errorf("object %s metadata: %w", obj.Key(), err)
	}
	if err := json.Unmarshal(md["ownerReferences"], &refs); err != nil {
		return fmt.Errorf("object %s ownerReferences: %w", obj.Key(), err)
	}
	refs = slices.DeleteFunc(refs, func(raw json.RawMessage) bool {
		var r ownerReference
		_ = json.Unmarshal(raw, &r)
		return slices.Contains(drop, r.UID)
	})
	if len(refs) == 0 {
		delete(md, "ownerReferences")
	} else {
		md["ownerReferences"], _ = json.Marshal(refs)
	}
	top["metadata"], _ = json.Marshal(md)
	body, err := json.Marshal(top)
	if err != nil {
		return fmt.Errorf("object %s: %w", obj.Key(), err)
	}
	o := obj
	o.Body = body
	_, err = c.store.Apply(ctx, &engine.PutObject{Object: o, IfRevision: obj.Revision})
	return err
}
