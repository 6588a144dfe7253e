package kubegc

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/rackboot/rackboot/engine"
)

// action is what the collector does to one dependent: remove its
// references to the owner uids drop, or delete it with a propagation
// policy.
type action struct {
	obj    engine.Object
	drop   []string
	del    bool
	policy string
}

// decide classifies obj's owners as kube-controller-manager's
// classifyReferences does — solid (it exists, or cannot be looked up),
// dangling (gone, or another object of that name), waiting (it deletes
// its dependents in the foreground) — and says what to do; ok false:
// nothing.
func (c *collector) decide(m *engine.Model, obj engine.Object) (a action, ok bool) {
	owners := ownersOf(obj)
	if len(owners) == 0 {
		return a, false
	}
	var solid int
	var dangling, waiting []string
	for _, r := range owners {
		o, found, resolvable := lookup(m, obj.Namespace, r)
		switch {
		case !resolvable:
			solid++
		case !found || (r.UID != "" && o.UID != r.UID):
			dangling = append(dangling, r.UID)
		case o.Deleting() && hasFinalizer(o, engine.FinalizerForeground):
			waiting = append(waiting, r.UID)
		default:
			solid++
		}
	}
	switch {
	case solid > 0 && len(dangling)+len(waiting) == 0:
		return a, false
	case solid > 0:
		// the references to owners gone or waiting go, or a waiting owner
		// would wait for this one for ever
		return action{obj: obj, drop: append(dangling, waiting...)}, true
	case len(waiting) > 0 && len(c.dependents(m, obj)) > 0:
		return action{obj: obj, del: true, policy: engine.PropagateForeground}, true
	default:
		// its own orphan or foregroundDeletion finalizer, if any, decides
		return action{obj: obj, del: true}, true
	}
}

// act does a; it reports whether it deleted an object. A refusal because
// the object changed or went meanwhile is left to its change, which is
// looked at next.
func (c *collector) act(ctx context.Context, a action) bool {
	var err error
	if a.del {
		_, err = c.store.Apply(ctx, &engine.DeleteObject{Ref: a.obj.ObjectRef, IfRevision: a.obj.Revision, Propagation: a.policy})
	} else {
		err = c.dropOwners(ctx, a.obj, a.drop)
	}
	switch {
	case err == nil && a.del:
		c.log.Info("object whose owners are gone deleted", "object", a.obj.Key(), "propagation", a.policy)
		return true
	case err == nil:
		c.log.Info("references to owners gone or being deleted removed", "object", a.obj.Key())
	case !errors.Is(err, engine.ErrNotFound) && !errors.Is(err, engine.ErrConflict) && ctx.Err() == nil:
		c.log.Warn("object whose owners are gone not collected", "object", a.obj.Key(), "err", err)
	}
	return false
}

// dependents are the objects that name owner (its uid) among their
// ownerReferences.
func (c *collector) dependents(m *engine.Model, owner engine.Object) []engine.Object {
	var out []engine.Object
	for k := range c.deps[owner.UID] {
		if d, ok := m.Object(k); ok && slices.ContainsFunc(ownersOf(d), func(r ownerReference) bool { return r.UID == owner.UID }) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b engine.Object) int { return cmp.Compare(a.Key(), b.Key()) })
	return out
}

// hasFinalizer reports whether obj has finalizer f.
func hasFinalizer(obj engine.Object, f string) bool { return slices.Contains(obj.Finalizers(), f) }
