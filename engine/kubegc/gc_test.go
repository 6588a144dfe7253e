package kubegc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/kubegc"
	"github.com/rackboot/rackboot/engine/kubekinds"
)

func put(t *testing.T, s *enginetest.Store, ref engine.ObjectRef, uid, body string) {
	t.Helper()
	if _, err := s.Apply(context.Background(), &engine.PutObject{Create: true, Object: engine.Object{ObjectRef: ref, UID: uid, Body: json.RawMessage(body)}}); err != nil {
		t.Fatal(err)
	}
}

func owned(owners ...string) string {
	return `{"metadata":{"ownerReferences":[` + join(owners) + `]}}`
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

// As kube-controller-manager's garbage collector: deleting an owner
// deletes its dependents (a Secret of a ClusterDeployment, an object of
// a cluster-scoped owner); a dependent with another owner still there
// stays; an owner deleted and made again (another uid) does not keep its
// old dependents; objects without owners, or whose owner is of a kind not
// served (it cannot be looked up), stay.
func TestCollect(t *testing.T) {
	s := enginetest.NewStore()
	ctx := context.Background()
	put(t, s, engine.NamespaceRef("ns"), "n", `{}`)
	cd := engine.ObjectRef{Group: "hive.openshift.io", Kind: "ClusterDeployment", Namespace: "ns", Name: "c1"}
	cis := engine.ObjectRef{Group: "hive.openshift.io", Kind: "ClusterImageSet", Name: "ocp"}
	other := engine.ObjectRef{Kind: "ConfigMap", Namespace: "ns", Name: "keep-owner"}
	put(t, s, cd, "cd-1", `{}`)
	put(t, s, cis, "cis-1", `{}`)
	put(t, s, other, "cm-1", `{}`)
	const cdOwner = `{"apiVersion":"hive.openshift.io/v1","kind":"ClusterDeployment","name":"c1","uid":"cd-1"}`
	secret := engine.ObjectRef{Kind: "Secret", Namespace: "ns", Name: "c1-admin-kubeconfig"}
	twoOwners := engine.ObjectRef{Kind: "ConfigMap", Namespace: "ns", Name: "two-owners"}
	ofCIS := engine.ObjectRef{Kind: "ConfigMap", Namespace: "ns", Name: "of-cis"}
	free := engine.ObjectRef{Kind: "ConfigMap", Namespace: "ns", Name: "free"}
	ofDeployment := engine.ObjectRef{Kind: "ConfigMap", Namespace: "ns", Name: "of-a-deployment"}
	put(t, s, ofDeployment, "s-5", owned(`{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"d-1"}`))
	put(t, s, secret, "s-1", owned(cdOwner))
	put(t, s, twoOwners, "s-2", owned(cdOwner, `{"apiVersion":"v1","kind":"ConfigMap","name":"keep-owner","uid":"cm-1"}`))
	put(t, s, ofCIS, "s-3", owned(`{"apiVersion":"hive.openshift.io/v1","kind":"ClusterImageSet","name":"ocp","uid":"cis-1"}`))
	put(t, s, free, "s-4", `{"data":{"a":"b"}}`)
	if n := kubegc.Collect(ctx, s, nil); n != 0 {
		t.Fatalf("collected %d with every owner there", n)
	}

	for _, ref := range []engine.ObjectRef{cd, cis} {
		if _, err := s.Apply(ctx, &engine.DeleteObject{Ref: ref}); err != nil {
			t.Fatal(err)
		}
	}
	put(t, s, cd, "cd-2", `{}`) // the same name, another object
	if n := kubegc.Collect(ctx, s, nil); n != 2 {
		t.Errorf("collected %d, want 2", n)
	}
	s.Read(func(m *engine.Model) {
		for ref, want := range map[engine.ObjectRef]bool{secret: false, ofCIS: false, twoOwners: true, free: true, other: true, ofDeployment: true} {
			if _, ok := m.Object(ref.Key()); ok != want {
				t.Errorf("%s exists %v, want %v", ref.Key(), ok, want)
			}
		}
	})
}

// Run follows the change feed: an owner deleted takes its dependent with
// it, and a dependent written whose owner is gone is deleted.
func TestRun(t *testing.T) {
	s := enginetest.NewStore()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- kubegc.Run(ctx, s, nil) }()
	t.Cleanup(func() { cancel(); <-done })
	put(t, s, engine.NamespaceRef("ns"), "n", `{}`)
	owner := engine.ObjectRef{Kind: "ConfigMap", Namespace: "ns", Name: "owner"}
	dep := engine.ObjectRef{Kind: "ConfigMap", Namespace: "ns", Name: "dep"}
	late := engine.ObjectRef{Kind: "ConfigMap", Namespace: "ns", Name: "late"}
	const ref = `{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"o-1"}`
	put(t, s, owner, "o-1", `{}`)
	put(t, s, dep, "d-1", owned(ref))
	if _, err := s.Apply(ctx, &engine.DeleteObject{Ref: owner}); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, s, "the dependent deleted", func(m *engine.Model) bool { _, ok := m.Object(dep.Key()); return !ok })
	put(t, s, late, "d-2", owned(ref))
	enginetest.WaitFor(t, s, "the late dependent deleted", func(m *engine.Model) bool { _, ok := m.Object(late.Key()); return !ok })
}

// An owner of every served kind is looked up where its kind lives
// (kubekinds: namespaced in the dependent's namespace, else
// cluster-scoped): while it exists its dependent stays, once deleted the
// dependent goes. A cluster-scoped dependent naming a namespaced owner is
// unresolvable and stays, as kube-controller-manager keeps it.
func TestCollectEveryServedKind(t *testing.T) {
	s := enginetest.NewStore()
	ctx := context.Background()
	put(t, s, engine.NamespaceRef("ns"), "n", `{}`)
	var owners, deps []engine.ObjectRef
	for i, k := range kubekinds.Served() {
		if k.Kind == "Event" || k.Kind == "Namespace" { // not stored objects; the dependents' own namespace
			continue
		}
		owner := engine.ObjectRef{Group: k.Group, Kind: k.Kind, Name: "owner"}
		if k.Namespaced {
			owner.Namespace = "ns"
		}
		uid := fmt.Sprintf("o-%d", i)
		put(t, s, owner, uid, `{}`)
		apiVersion := k.Version
		if k.Group != "" {
			apiVersion = k.Group + "/" + k.Version
		}
		dep := engine.ObjectRef{Kind: "ConfigMap", Namespace: "ns", Name: "dep-of-" + strings.ToLower(k.Kind)}
		put(t, s, dep, "d-"+uid, owned(fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"name":"owner","uid":%q}`, apiVersion, k.Kind, uid)))
		owners, deps = append(owners, owner), append(deps, dep)
	}
	clusterDep := engine.ObjectRef{Group: kubekinds.GroupHive, Kind: "ClusterImageSet", Name: "of-a-namespaced-owner"}
	put(t, s, clusterDep, "c-1", owned(`{"apiVersion":"hive.openshift.io/v1","kind":"ClusterDeployment","name":"gone","uid":"x"}`))
	if n := kubegc.Collect(ctx, s, nil); n != 0 {
		t.Fatalf("collected %d with every owner there", n)
	}
	for _, ref := range owners {
		if _, err := s.Apply(ctx, &engine.DeleteObject{Ref: ref}); err != nil {
			t.Fatal(err)
		}
	}
	if n := kubegc.Collect(ctx, s, nil); n != len(deps) {
		t.Errorf("collected %d, want %d", n, len(deps))
	}
	s.Read(func(m *engine.Model) {
		for _, ref := range deps {
			if _, ok := m.Object(ref.Key()); ok {
				t.Errorf("%s kept, its owner gone", ref.Key())
			}
		}
		if _, ok := m.Object(clusterDep.Key()); !ok {
			t.Errorf("%s collected, its namespaced owner unresolvable", clusterDep.Key())
		}
	})
}
