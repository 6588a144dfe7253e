package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"time"
)

// KindObject is the kind of the Change made when a Kubernetes-style object
// (engine/kubeapi) is stored or removed; its ID is the object's key.
const KindObject Kind = "object"

// MaxObjectBytes bounds the JSON body of one stored object (a Kubernetes
// API server refuses requests over 3 MiB and etcd values over 1.5 MiB).
const MaxObjectBytes = 1 << 20

// ErrExists: a create named an object that is already stored. It wraps
// ErrConflict.
var ErrExists = fmt.Errorf("%w: already exists", ErrConflict)

// ObjectRef names a Kubernetes-style object: API group ("" for the core
// group), kind, namespace ("" for a cluster-scoped kind) and name.
type ObjectRef struct {
	Group     string `json:"group,omitempty"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// Key is the model's key of the object: the ref's four parts joined by
// "/" (none of them may hold a "/").
func (r ObjectRef) Key() string {
	return r.Group + "/" + r.Kind + "/" + r.Namespace + "/" + r.Name
}

// String is the key.
func (r ObjectRef) String() string { return r.Key() }

func (r ObjectRef) check() error {
	if r.Kind == "" || r.Name == "" {
		return invalid("object %q without a kind or a name", r.Key())
	}
	for _, p := range []string{r.Group, r.Kind, r.Namespace, r.Name} {
		if strings.Contains(p, "/") {
			return invalid("object %q: a part holds a /", r.Key())
		}
	}
	return nil
}

// SealName is the name a Secret object's values are sealed under
// (engine.Sealer binds it in): its namespace and name.
func (r ObjectRef) SealName() string { return "kube:" + r.Namespace + "/" + r.Name }

// NamespaceRef is the ref of the Namespace object ns.
func NamespaceRef(ns string) ObjectRef { return ObjectRef{Kind: "Namespace", Name: ns} }

// Object is a Kubernetes-style object served by engine/kubeapi: its ref,
// the fields the server owns (uid, generation; resourceVersion is
// Meta.Revision and creationTimestamp Meta.CreatedAt) and the JSON body
// the client wrote, server-owned fields left out. Secret values in Body
// are sealed by the API before they reach a command.
type Object struct {
	Meta
	ObjectRef
	UID        string            `json:"uid"`
	Generation int64             `json:"generation,omitempty"`
	Labels     map[string]string `json:"labels,omitempty"`
	Body       json.RawMessage   `json:"body"`
	// DeletionTimestamp is when a delete found finalizers on the object
	// (zero: not being deleted); it stays until the last one is removed.
	DeletionTimestamp time.Time `json:"deletion_timestamp,omitzero"`
}

// Finalizers are the body's metadata.finalizers.
func (o Object) Finalizers() []string {
	var b struct {
		Metadata struct {
			Finalizers []string `json:"finalizers"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(o.Body, &b)
	return b.Metadata.Finalizers
}

// Deleting reports whether a delete waits for the object's finalizers.
func (o Object) Deleting() bool { return !o.DeletionTimestamp.IsZero() }

// String names the object's ref and revision, never its body.
func (o Object) String() string { return fmt.Sprintf("Object(%s@%d)", o.Key(), o.Revision) }

// Object returns the object with key (ObjectRef.Key).
func (m *Model) Object(key string) (Object, bool) { return get(m.objects, key) }

// AllObjects yields every object, of every kind, in key order.
func (m *Model) AllObjects() iter.Seq[Object] {
	return func(yield func(Object) bool) {
		keys := make([]string, 0, len(m.objects))
		for k := range m.objects {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !yield(*m.objects[k]) {
				return
			}
		}
	}
}

// ObjectIndex is the log index of the last command that changed an
// object (0 when none did since the model was loaded): a reader of the
// change feed that has seen that index has seen every object change up
// to Index.
func (m *Model) ObjectIndex() uint64 { return m.objectIndex }

// objectsIn yields the keys of every object in namespace ns.
func (m *Model) objectsIn(ns string) []string {
	var keys []string
	for k, o := range m.objects {
		if o.Namespace == ns {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func cloneObjects(objs map[string]*Object) map[string]*Object { return maps.Clone(objs) }

// IsExists reports whether err says a created object already exists.
func IsExists(err error) bool { return errors.Is(err, ErrExists) }
