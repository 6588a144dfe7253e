package engine_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// Model.Objects lists one kind's objects (of one namespace, or all) in
// key order, from the index of keys by kind that creations and deletions
// keep (also through a namespace's deletion, a clone and a snapshot).
func TestObjectsOfKind(t *testing.T) {
	s := enginetest.NewStore()
	for _, ns := range []string{"a", "b"} {
		if err := putObj(t, s, &engine.PutObject{Object: engine.Object{ObjectRef: engine.NamespaceRef(ns), UID: "n" + ns, Body: json.RawMessage(`{}`)}, Create: true}); err != nil {
			t.Fatal(err)
		}
	}
	agent := func(ns, name string) engine.Object {
		return engine.Object{ObjectRef: engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "Agent", Namespace: ns, Name: name},
			UID: "u-" + ns + name, Body: json.RawMessage(`{}`)}
	}
	for _, o := range []engine.Object{agent("b", "y"), kobj("a", "ie", `{}`), agent("a", "z"), agent("a", "x"), kobj("b", "ie", `{}`)} {
		if err := putObj(t, s, &engine.PutObject{Object: o, Create: true}); err != nil {
			t.Fatal(err)
		}
	}
	list := func(m *engine.Model, kind, ns string) []string {
		var names []string
		for o := range m.Objects("agent-install.openshift.io", kind, ns) {
			names = append(names, o.Namespace+"/"+o.Name)
		}
		return names
	}
	check := func(what string, m *engine.Model, kind, ns string, want ...string) {
		t.Helper()
		if got := list(m, kind, ns); !slices.Equal(got, want) {
			t.Errorf("%s: %s in %q: %v, want %v", what, kind, ns, got, want)
		}
	}
	var before *engine.Model
	s.Read(func(m *engine.Model) {
		check("created", m, "Agent", "", "a/x", "a/z", "b/y")
		check("created", m, "Agent", "a", "a/x", "a/z")
		check("created", m, "InfraEnv", "", "a/ie", "b/ie")
		check("created", m, "NMStateConfig", "")
		before = m.Clone()
	})
	upd := agent("a", "x")
	upd.Body = json.RawMessage(`{"spec":{"approved":true}}`)
	if err := putObj(t, s, &engine.PutObject{Object: upd}); err != nil {
		t.Fatal(err)
	}
	if err := putObj(t, s, &engine.PutObject{Object: agent("a", "w"), Create: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(t.Context(), &engine.DeleteObject{Ref: agent("a", "z").ObjectRef}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(t.Context(), &engine.DeleteObject{Ref: engine.NamespaceRef("b")}); err != nil {
		t.Fatal(err)
	}
	check("a clone taken before", before, "Agent", "", "a/x", "a/z", "b/y")
	var snap bytes.Buffer
	s.Read(func(m *engine.Model) {
		check("after an update, a create and deletes", m, "Agent", "", "a/w", "a/x")
		check("after an update, a create and deletes", m, "InfraEnv", "", "a/ie")
		if _, err := m.WriteTo(&snap); err != nil {
			t.Fatal(err)
		}
	})
	m, err := engine.ReadModel(&snap)
	if err != nil {
		t.Fatal(err)
	}
	check("from a snapshot", m, "Agent", "", "a/w", "a/x")
	check("from a snapshot", m, "Agent", "a", "a/w", "a/x")
}
