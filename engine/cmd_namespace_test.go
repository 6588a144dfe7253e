package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// Deleting a Namespace deletes its objects (one with a finalizer is only
// marked), leaves the Namespace Terminating, refuses new objects in it,
// and removes it with its last object.
func TestNamespaceDeletion(t *testing.T) {
	s := enginetest.NewStore()
	ctx := context.Background()
	must := func(c engine.Command) {
		t.Helper()
		if _, err := s.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	nsRef := engine.NamespaceRef("demo")
	must(&engine.PutObject{Create: true, Object: engine.Object{ObjectRef: nsRef, UID: "n", Body: json.RawMessage(`{}`)}})
	must(&engine.PutObject{Create: true, Object: kobj("demo", "plain", `{}`)})
	held := kobj("demo", "held", `{"metadata":{"finalizers":["x/y"]}}`)
	must(&engine.PutObject{Create: true, Object: held})
	must(&engine.DeleteObject{Ref: nsRef})

	get := func(ref engine.ObjectRef) (o engine.Object, ok bool) {
		s.Read(func(m *engine.Model) { o, ok = m.Object(ref.Key()) })
		return o, ok
	}
	if _, ok := get(kobj("demo", "plain", "").ObjectRef); ok {
		t.Error("an object without finalizers outlived the namespace delete")
	}
	if o, ok := get(held.ObjectRef); !ok || !o.Deleting() {
		t.Errorf("the object with a finalizer: exists %v, deleting %v; want kept and marked", ok, o.Deleting())
	}
	if o, ok := get(nsRef); !ok || !o.Deleting() {
		t.Fatalf("the namespace: exists %v, deleting %v; want Terminating", ok, o.Deleting())
	}
	if _, err := s.Apply(ctx, &engine.PutObject{Create: true, Object: kobj("demo", "new", `{}`)}); !errors.Is(err, engine.ErrInvalid) {
		t.Errorf("create in a terminating namespace: %v, want ErrInvalid", err)
	}
	// An update of the Namespace itself does not remove it while it holds
	// an object.
	must(&engine.PutObject{Object: engine.Object{ObjectRef: nsRef, Body: json.RawMessage(`{"metadata":{"labels":{"a":"b"}}}`)}})
	if _, ok := get(nsRef); !ok {
		t.Fatal("the namespace went while it held an object")
	}
	released := held
	released.Body = json.RawMessage(`{"metadata":{}}`)
	must(&engine.PutObject{Object: released})
	if _, ok := get(held.ObjectRef); ok {
		t.Error("the object outlived its last finalizer")
	}
	if _, ok := get(nsRef); ok {
		t.Error("the namespace outlived its last object")
	}
}
