package kubegc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/kubegc"
)

// run starts the collector on a store with namespace ns until the test
// ends.
func run(t *testing.T) *enginetest.Store {
	t.Helper()
	s := enginetest.NewStore()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- kubegc.Run(ctx, s, nil) }()
	t.Cleanup(func() { cancel(); <-done })
	put(t, s, engine.NamespaceRef("ns"), "n", `{}`)
	return s
}

func cm(name string) engine.ObjectRef {
	return engine.ObjectRef{Kind: "ConfigMap", Namespace: "ns", Name: name}
}

// ref is an ownerReference to ConfigMap name of uid, blocking its
// owner's foreground deletion if block.
func ref(name, uid string, block bool) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","name":%q,"uid":%q,"blockOwnerDeletion":%v}`, name, uid, block)
}

func gone(ref engine.ObjectRef) func(*engine.Model) bool {
	return func(m *engine.Model) bool { _, ok := m.Object(ref.Key()); return !ok }
}

// ownerUIDs are the uids of the object's ownerReferences (nil: gone).
func ownerUIDs(s *enginetest.Store, r engine.ObjectRef) []string {
	var uids []string
	s.Read(func(m *engine.Model) {
		o, ok := m.Object(r.Key())
		if !ok {
			return
		}
		var b struct {
			Metadata struct {
				OwnerReferences []struct{ UID string } `json:"ownerReferences"`
			} `json:"metadata"`
		}
		_ = json.Unmarshal(o.Body, &b)
		uids = []string{}
		for _, x := range b.Metadata.OwnerReferences {
			uids = append(uids, x.UID)
		}
	})
	return uids
}

func del(t *testing.T, s *enginetest.Store, r engine.ObjectRef, policy string) {
	t.Helper()
	if _, err := s.Apply(context.Background(), &engine.DeleteObject{Ref: r, Propagation: policy}); err != nil {
		t.Fatal(err)
	}
}

// Orphan, as kube-controller-manager's attemptToOrphan: the deleted
// owner's references are removed from its dependents, which stay (one
// with another owner keeps that one), then its orphan finalizer, and it
// goes.
func TestOrphan(t *testing.T) {
	s := run(t)
	put(t, s, cm("owner"), "o-1", `{}`)
	put(t, s, cm("other"), "o-2", `{}`)
	put(t, s, cm("dep"), "d-1", owned(ref("owner", "o-1", true)))
	put(t, s, cm("two"), "d-2", owned(ref("owner", "o-1", false), ref("other", "o-2", false)))
	del(t, s, cm("owner"), engine.PropagateOrphan)
	enginetest.WaitFor(t, s, "the orphan-deleted owner gone", gone(cm("owner")))
	if got := ownerUIDs(s, cm("dep")); got == nil || len(got) != 0 {
		t.Errorf("the orphaned dependent's owners: %v, want it kept with none", got)
	}
	if got := ownerUIDs(s, cm("two")); !slices.Equal(got, []string{"o-2"}) {
		t.Errorf("the dependent with another owner: owners %v, want [o-2]", got)
	}
}

// Foreground, as kube-controller-manager's processDeletingDependentsItem:
// the owner's dependents are deleted (one with a dependent of its own in
// the foreground too), one with another owner loses its reference; the
// owner stays while a dependent with blockOwnerDeletion is there (held by
// its own finalizer), and goes once it is gone.
func TestForeground(t *testing.T) {
	s := run(t)
	ctx := context.Background()
	put(t, s, cm("owner"), "o-1", `{}`)
	put(t, s, cm("other"), "o-2", `{}`)
	put(t, s, cm("free"), "d-1", owned(ref("owner", "o-1", false)))
	put(t, s, cm("kept"), "d-2", owned(ref("owner", "o-1", true), ref("other", "o-2", false)))
	put(t, s, cm("mid"), "d-3", owned(ref("owner", "o-1", true)))
	put(t, s, cm("leaf"), "d-4", owned(ref("mid", "d-3", true)))
	held := `{"metadata":{"finalizers":["example.com/hold"],"ownerReferences":[` + ref("owner", "o-1", true) + `]}}`
	put(t, s, cm("held"), "d-5", held)
	del(t, s, cm("owner"), engine.PropagateForeground)

	enginetest.WaitFor(t, s, "the dependents deleted, the held one marked", func(m *engine.Model) bool {
		h, ok := m.Object(cm("held").Key())
		return gone(cm("free"))(m) && gone(cm("mid"))(m) && gone(cm("leaf"))(m) && ok && h.Deleting()
	})
	if got := ownerUIDs(s, cm("kept")); !slices.Equal(got, []string{"o-2"}) {
		t.Errorf("the dependent with another owner: owners %v, want [o-2]", got)
	}
	s.Read(func(m *engine.Model) {
		o, ok := m.Object(cm("owner").Key())
		if !ok || !o.Deleting() || !slices.Equal(o.Finalizers(), []string{engine.FinalizerForeground}) {
			t.Errorf("the owner while a blocking dependent is there: %v %v, want it with foregroundDeletion", ok, o.Finalizers())
		}
	})
	var h engine.Object
	s.Read(func(m *engine.Model) { h, _ = m.Object(cm("held").Key()) })
	h.Body = json.RawMessage(`{"metadata":{"ownerReferences":[` + ref("owner", "o-1", true) + `]}}`)
	if _, err := s.Apply(ctx, &engine.PutObject{Object: h}); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, s, "the owner gone after its last blocking dependent", gone(cm("owner")))
}

// A dependent that does not block (blockOwnerDeletion unset) does not
// hold its owner: the owner goes, the dependent is collected.
func TestForegroundNotBlocked(t *testing.T) {
	s := run(t)
	put(t, s, cm("owner"), "o-1", `{}`)
	held := `{"metadata":{"finalizers":["example.com/hold"],"ownerReferences":[` + ref("owner", "o-1", false) + `]}}`
	put(t, s, cm("held"), "d-1", held)
	del(t, s, cm("owner"), engine.PropagateForeground)
	enginetest.WaitFor(t, s, "the owner gone, its non-blocking dependent marked", func(m *engine.Model) bool {
		h, ok := m.Object(cm("held").Key())
		return gone(cm("owner"))(m) && ok && h.Deleting()
	})
}
