package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"
)

// PutObject stores a Kubernetes-style object. Create refuses an existing
// one (ErrExists); otherwise the object must exist (ErrNotFound), and with
// IfRevision set it must have been last changed at that log index
// (ErrConflict): the API's optimistic concurrency on resourceVersion. A
// namespaced object needs its Namespace. An update keeps the stored UID.
type PutObject struct {
	Stamp
	Object     Object `json:"object"`
	Create     bool   `json:"create,omitempty"`
	IfRevision uint64 `json:"if_revision,omitempty"`
}

// Type implements Command.
func (*PutObject) Type() Type { return TypePutObject }

func (c *PutObject) apply(tx *Tx) (any, error) {
	o := c.Object
	if err := o.check(); err != nil {
		return nil, err
	}
	if len(o.Body) > MaxObjectBytes {
		return nil, invalid("object %s: %d bytes, at most %d", o.Key(), len(o.Body), MaxObjectBytes)
	}
	if b := bytes.TrimSpace(o.Body); len(b) == 0 || b[0] != '{' || !json.Valid(b) {
		return nil, invalid("object %s: the body is not a JSON object", o.Key())
	}
	if o.Namespace != "" {
		if _, ok := tx.m.objects[NamespaceRef(o.Namespace).Key()]; !ok {
			return nil, notFound(KindObject, NamespaceRef(o.Namespace).Key())
		}
		if c.Create && tx.m.terminating(o.Namespace) {
			return nil, invalid("object %s: unable to create new content in namespace %s because it is being terminated", o.Key(), o.Namespace)
		}
	}
	key := o.Key()
	cur, ok := tx.m.objects[key]
	switch {
	case c.Create && ok:
		return nil, fmt.Errorf("%w: %s", ErrExists, key)
	case !c.Create && !ok:
		return nil, notFound(KindObject, key)
	case c.IfRevision != 0 && ok && cur.Revision != c.IfRevision:
		return nil, conflict("object %s changed since revision %d", key, c.IfRevision)
	}
	if ok {
		o.UID, o.DeletionTimestamp = cur.UID, cur.DeletionTimestamp
	} else {
		o.DeletionTimestamp = time.Time{}
	}
	if o.Deleting() {
		fs := o.Finalizers()
		for _, f := range fs {
			if !slices.Contains(cur.Finalizers(), f) {
				return nil, invalid("object %s: no new finalizers can be added if the object is being deleted, found new finalizers %q", key, f)
			}
		}
		if len(fs) == 0 && !(isNamespace(o.ObjectRef) && len(tx.m.objectsIn(o.Name)) > 0) {
			tx.delObject(key)
			tx.attach(cur)
			reapNamespace(tx, o.Namespace)
			return nil, nil
		}
	}
	o.Labels = maps.Clone(o.Labels)
	o.Body = bytes.Clone(o.Body)
	tx.putObject(key, &o)
	tx.attach(&o)
	return o.Revision, nil
}

// DeleteObject removes a Kubernetes-style object; with IfRevision set only
// if it was last changed at that log index. An object with finalizers is
// only marked (its DeletionTimestamp set, once): it goes when a PutObject
// removes the last one. Propagation (propagation.go) first sets the
// garbage collector's orphan or foregroundDeletion finalizer, or removes
// it, as kube-apiserver does, also on an object already being deleted.
// Deleting a Namespace deletes every object in it and marks it
// Terminating until the last one is gone (cmd_namespace.go); Propagation
// is not applied to it.
type DeleteObject struct {
	Stamp
	Ref         ObjectRef `json:"ref"`
	IfRevision  uint64    `json:"if_revision,omitempty"`
	Propagation string    `json:"propagation,omitempty"`
}

// Type implements Command.
func (*DeleteObject) Type() Type { return TypeDeleteObject }

// bodyVersion: a Propagation is version 2 (an older rackboot would delete
// the object at once).
func (c *DeleteObject) bodyVersion() byte { return versionIf(c.Propagation != "") }

func (c *DeleteObject) apply(tx *Tx) (any, error) {
	if err := c.Ref.check(); err != nil {
		return nil, err
	}
	key := c.Ref.Key()
	cur, ok := tx.m.objects[key]
	if !ok {
		return nil, notFound(KindObject, key)
	}
	if c.IfRevision != 0 && cur.Revision != c.IfRevision {
		return nil, conflict("object %s changed since revision %d", key, c.IfRevision)
	}
	if isNamespace(c.Ref) {
		deleteNamespace(tx, cur)
		return nil, nil
	}
	o := *cur
	fs, changed, err := propagationFinalizers(cur.Finalizers(), c.Propagation)
	if err != nil {
		return nil, err
	}
	if changed {
		if o, err = o.WithFinalizers(fs); err != nil {
			return nil, invalid("%v", err)
		}
	}
	if len(fs) > 0 {
		if cur.Deleting() && !changed {
			return nil, nil
		}
		if !o.Deleting() {
			o.DeletionTimestamp = deletionTime(tx)
		}
		tx.putObject(key, &o)
		tx.attach(&o)
		return nil, nil
	}
	tx.delObject(key)
	tx.attach(cur)
	reapNamespace(tx, cur.Namespace)
	return nil, nil
}
