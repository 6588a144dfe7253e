package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

func putObj(t *testing.T, s *enginetest.Store, c *engine.PutObject) error {
	t.Helper()
	_, err := s.Apply(context.Background(), c)
	return err
}

func kobj(ns, name, body string) engine.Object {
	return engine.Object{
		ObjectRef: engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: ns, Name: name},
		UID:       "u-" + name, Body: json.RawMessage(body),
	}
}

// Objects are created once, updated only at the revision read (a stale
// one changes nothing), need their namespace, and go with it.
func TestPutObjectRules(t *testing.T) {
	s := enginetest.NewStore()
	ns := engine.Object{ObjectRef: engine.NamespaceRef("demo"), UID: "n", Body: json.RawMessage(`{}`)}
	if err := putObj(t, s, &engine.PutObject{Object: kobj("demo", "ie", `{}`), Create: true}); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("object before its namespace: %v, want ErrNotFound", err)
	}
	if err := putObj(t, s, &engine.PutObject{Object: ns, Create: true}); err != nil {
		t.Fatal(err)
	}
	if err := putObj(t, s, &engine.PutObject{Object: kobj("demo", "ie", `{"spec":{}}`), Create: true}); err != nil {
		t.Fatal(err)
	}
	if err := putObj(t, s, &engine.PutObject{Object: kobj("demo", "ie", `{}`), Create: true}); !engine.IsExists(err) || !errors.Is(err, engine.ErrConflict) {
		t.Fatalf("second create: %v, want ErrExists", err)
	}
	key := kobj("demo", "ie", "").Key()
	var rev uint64
	s.Read(func(m *engine.Model) { o, _ := m.Object(key); rev = o.Revision })
	upd := kobj("demo", "ie", `{"spec":{"a":1}}`)
	upd.UID = "other"
	if err := putObj(t, s, &engine.PutObject{Object: upd, IfRevision: rev}); err != nil {
		t.Fatal(err)
	}
	if err := putObj(t, s, &engine.PutObject{Object: kobj("demo", "ie", `{"spec":{"a":2}}`), IfRevision: rev}); !errors.Is(err, engine.ErrConflict) {
		t.Fatalf("stale revision: %v, want ErrConflict", err)
	}
	for name, body := range map[string]string{"array": `[]`, "bad json": `{`, "empty": ``} {
		if err := putObj(t, s, &engine.PutObject{Object: kobj("demo", "ie", body), IfRevision: 0}); !errors.Is(err, engine.ErrInvalid) {
			t.Errorf("%s body: %v, want ErrInvalid", name, err)
		}
	}
	s.Read(func(m *engine.Model) {
		o, _ := m.Object(key)
		if string(o.Body) != `{"spec":{"a":1}}` || o.UID != "u-ie" || o.Revision <= rev {
			t.Errorf("stored %s uid %s rev %d, want the first update with the created uid", o.Body, o.UID, o.Revision)
		}
	})
	if _, err := s.Apply(context.Background(), &engine.DeleteObject{Ref: engine.NamespaceRef("demo")}); err != nil {
		t.Fatal(err)
	}
	s.Read(func(m *engine.Model) {
		for range m.Objects("agent-install.openshift.io", "InfraEnv", "") {
			t.Error("an object outlived its namespace")
		}
	})
}

// Objects are in the snapshot and come back from it as they were.
func TestObjectsSnapshot(t *testing.T) {
	s := enginetest.NewStore()
	ns := engine.Object{ObjectRef: engine.NamespaceRef("demo"), UID: "n", Body: json.RawMessage(`{}`)}
	if err := putObj(t, s, &engine.PutObject{Object: ns, Create: true}); err != nil {
		t.Fatal(err)
	}
	o := kobj("demo", "ie", `{"spec":{}}`)
	o.Labels = map[string]string{"a": "b"}
	if err := putObj(t, s, &engine.PutObject{Object: o, Create: true}); err != nil {
		t.Fatal(err)
	}
	var dump []byte
	s.Read(func(m *engine.Model) { dump = enginetest.Dump(m) })
	m2, err := engine.ReadModel(bytes.NewReader(dump))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := m2.Object(o.Key())
	if !ok || got.Labels["a"] != "b" || string(got.Body) != `{"spec":{}}` {
		t.Fatalf("restored %+v, %v", got, ok)
	}
	if !bytes.Equal(enginetest.Dump(m2), dump) {
		t.Error("the restored model dumps differently")
	}
}

// A delete of an object with finalizers only marks it (once); a new
// finalizer is refused then; removing the last one removes the object.
func TestObjectFinalizers(t *testing.T) {
	s := enginetest.NewStore()
	ctx := context.Background()
	must := func(c engine.Command) {
		t.Helper()
		if _, err := s.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	must(&engine.PutObject{Create: true, Object: engine.Object{ObjectRef: engine.NamespaceRef("ns"), UID: "n", Body: json.RawMessage(`{}`)}})
	ref := engine.ObjectRef{Group: "g", Kind: "K", Namespace: "ns", Name: "o"}
	must(&engine.PutObject{Create: true, Object: engine.Object{ObjectRef: ref, UID: "u",
		Body: json.RawMessage(`{"metadata":{"finalizers":["a/b"]}}`)}})
	must(&engine.DeleteObject{Ref: ref})
	var o engine.Object
	var ok bool
	s.Read(func(m *engine.Model) { o, ok = m.Object(ref.Key()) })
	if !ok || !o.Deleting() {
		t.Fatalf("after delete: exists %v deleting %v", ok, o.Deleting())
	}
	marked := o.DeletionTimestamp
	must(&engine.DeleteObject{Ref: ref})
	s.Read(func(m *engine.Model) { o, _ = m.Object(ref.Key()) })
	if !o.DeletionTimestamp.Equal(marked) {
		t.Errorf("a second delete moved deletionTimestamp %v → %v", marked, o.DeletionTimestamp)
	}
	o.Body = json.RawMessage(`{"metadata":{"finalizers":["a/b","c/d"]}}`)
	if _, err := s.Apply(ctx, &engine.PutObject{Object: o}); !errors.Is(err, engine.ErrInvalid) {
		t.Errorf("a new finalizer on an object being deleted: %v", err)
	}
	o.Body = json.RawMessage(`{"metadata":{"finalizers":[]}}`)
	must(&engine.PutObject{Object: o})
	s.Read(func(m *engine.Model) { _, ok = m.Object(ref.Key()) })
	if ok {
		t.Error("the object stays after its last finalizer is removed")
	}
}
