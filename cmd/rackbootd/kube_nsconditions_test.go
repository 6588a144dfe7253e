package main

import (
	"strings"
	"testing"
)

// TestKubectlNamespaceConditionsWatched: a Terminating Namespace's
// deletion conditions are written as its content goes, so `kubectl get
// namespace -w` sees them change (a finalizer removed from one of two
// held objects) before the Namespace itself goes.
func TestKubectlNamespaceConditionsWatched(t *testing.T) {
	k := newKubeTest(t)
	k.must("create", "namespace", "nsw")
	for _, n := range []string{"held1", "held2"} {
		k.must("apply", "-f", writeFile(t, k.home, n+".yaml",
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "+n+"\n  namespace: nsw\n  finalizers: [example.com/hold]\n"))
	}
	k.must("delete", "namespace", "nsw", "--wait=false")
	lines := k.watch("get", "namespace", "nsw", "-w",
		"-o", `jsonpath={.status.phase} {.status.conditions[?(@.type=="NamespaceContentRemaining")].message}{"\n"}`)
	next := func() string { t.Helper(); return nextLine(t, lines, "change of the conditions") }
	const two, one = "Terminating Some resources are remaining: configmaps. has 2 resource instances",
		"Terminating Some resources are remaining: configmaps. has 1 resource instances"
	if l := next(); l != two {
		t.Fatalf("the Namespace listed: %q, want %q", l, two)
	}
	k.must("patch", "configmap", "held1", "-n", "nsw", "--type", "json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
	for {
		l := next()
		if l == one {
			break
		}
		if l != two { // the conditions' first writing may come after the list
			t.Fatalf("the Namespace watched: %q, want %q", l, one)
		}
	}
	if got := k.must("get", "namespace", "nsw", "-o", "jsonpath={.status.conditions[*].type}"); !strings.Contains(got, "NamespaceFinalizersRemaining") {
		t.Errorf("the conditions read: %q", got)
	}
}
