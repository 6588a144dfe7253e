package engine

import "time"

// Namespace deletion, as kube-apiserver and its namespace controller do it
// in one step per command: deleting a Namespace deletes every object in
// it (an object with finalizers is only marked, like any delete) and
// marks the Namespace Terminating (its DeletionTimestamp set); the
// Namespace goes with the removal of its last object (PutObject removing
// the last finalizer, DeleteObject). Nothing is created in a Terminating
// namespace.

// isNamespace reports whether r names a Namespace.
func isNamespace(r ObjectRef) bool { return r.Group == "" && r.Kind == "Namespace" }

// deleteNamespace deletes what ns holds and ns itself once it is empty
// and has no finalizers of its own.
func deleteNamespace(tx *Tx, ns *Object) {
	for _, k := range tx.m.objectsIn(ns.Name) {
		o := tx.m.objects[k]
		switch {
		case len(o.Finalizers()) == 0:
			tx.delObject(k)
			tx.attach(o)
		case !o.Deleting():
			marked := *o
			marked.DeletionTimestamp = deletionTime(tx)
			tx.putObject(k, &marked)
			tx.attach(&marked)
		}
	}
	if !ns.Deleting() {
		marked := *ns
		marked.DeletionTimestamp = deletionTime(tx)
		tx.putObject(ns.Key(), &marked)
		tx.attach(&marked)
	}
	reapNamespace(tx, ns.Name)
}

// reapNamespace removes namespace name when it is Terminating, empty and
// without finalizers of its own.
func reapNamespace(tx *Tx, name string) {
	if name == "" {
		return
	}
	key := NamespaceRef(name).Key()
	ns, ok := tx.m.objects[key]
	if !ok || !ns.Deleting() || len(ns.Finalizers()) > 0 || len(tx.m.objectsIn(name)) > 0 {
		return
	}
	tx.delObject(key)
	tx.attach(ns)
}

// terminating reports whether namespace ns is being deleted.
func (m *Model) terminating(ns string) bool {
	o, ok := m.objects[NamespaceRef(ns).Key()]
	return ok && o.Deleting()
}

// deletionTime is the DeletionTimestamp a command sets.
func deletionTime(tx *Tx) time.Time {
	t := tx.at.UTC().Truncate(time.Second)
	if t.IsZero() { // an unstamped command: still marked
		t = time.Unix(0, 0).UTC()
	}
	return t
}
