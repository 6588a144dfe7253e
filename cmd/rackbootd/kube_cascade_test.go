package main

import (
	"strings"
	"testing"
	"time"
)

// ownedConfigMap is a ConfigMap of namespace gc1 owned by the ConfigMap
// owner of uid, blocking its foreground deletion if block, with the
// finalizers fs.
func ownedConfigMap(name, owner, uid string, block bool, fs ...string) string {
	b := "false"
	if block {
		b = "true"
	}
	y := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: gc1\n" +
		"  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, name: " + owner + ", uid: " + uid + ", blockOwnerDeletion: " + b + "}\n"
	if len(fs) > 0 {
		y += "  finalizers: [" + strings.Join(fs, ", ") + "]\n"
	}
	return y
}

// owner creates ConfigMap name in gc1 and returns its uid.
func (k *kubeTest) owner(name string) string {
	k.t.Helper()
	k.must("create", "configmap", name, "-n", "gc1")
	return k.must("get", "configmap", name, "-n", "gc1", "-o", "jsonpath={.metadata.uid}")
}

// TestKubectlDeleteCascade: `kubectl delete --cascade=orphan` leaves the
// dependents, without their reference to the owner; `--cascade=background`
// (kubectl's default) deletes the owner at once and its dependents after;
// delete options kube-apiserver refuses (`kubectl delete --raw` sends
// them) are refused with its words and change nothing.
func TestKubectlDeleteCascade(t *testing.T) {
	k := newKubeTest(t)
	k.must("create", "namespace", "gc1")

	uid := k.owner("orphaner")
	k.must("apply", "-f", writeFile(t, k.home, "orphans.yaml", ownedConfigMap("orphan", "orphaner", uid, true)))
	wantLines(t, "delete --cascade=orphan", k.must("delete", "configmap", "orphaner", "-n", "gc1", "--cascade=orphan", "--timeout=60s"),
		`configmap "orphaner" deleted`)
	k.fails(`Error from server (NotFound): configmaps "orphaner" not found`, "get", "configmap", "orphaner", "-n", "gc1")
	if got := k.must("get", "configmap", "orphan", "-n", "gc1", "-o", "jsonpath={.metadata.name} owners={.metadata.ownerReferences}"); got != "orphan owners=" {
		t.Errorf("the orphaned dependent: %q, want it without its owner", got)
	}

	uid = k.owner("parent")
	k.must("apply", "-f", writeFile(t, k.home, "child.yaml", ownedConfigMap("child", "parent", uid, true)))
	// Options kube-apiserver refuses are refused so, and change nothing.
	for opts, want := range map[string]string{
		`{"propagationPolicy":"Sideways"}`:                       `The DeleteOptions "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"`,
		`{"propagationPolicy":"Orphan","orphanDependents":true}`: `The DeleteOptions "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set`,
	} {
		k.fails(want, "delete", "--raw", "/api/v1/namespaces/gc1/configmaps/parent", "-f", writeFile(t, k.home, "opts.json", opts))
	}
	if got := k.must("get", "configmap", "parent", "-n", "gc1", "-o", "jsonpath={.metadata.deletionTimestamp}{.metadata.finalizers}"); got != "" {
		t.Errorf("the owner after refused deletes: %q, want it untouched", got)
	}
	wantLines(t, "delete (background)", k.must("delete", "configmap", "parent", "-n", "gc1"), `configmap "parent" deleted`)
	pollUntil(t, func() (bool, string) {
		_, errOut, _ := k.run("get", "configmap", "child", "-n", "gc1")
		return strings.Contains(errOut, "NotFound"), "the dependent of an owner deleted in the background: " + errOut
	})
}

// TestKubectlDeleteForeground: `kubectl delete --cascade=foreground`
// marks the owner with kube's foregroundDeletion finalizer, the collector
// deletes its dependents, and kubectl waits while a dependent with
// blockOwnerDeletion is there (held by its own finalizer); it returns
// once that one is gone and the owner with it.
func TestKubectlDeleteForeground(t *testing.T) {
	k := newKubeTest(t)
	k.must("create", "namespace", "gc1")
	uid := k.owner("owner")
	k.must("apply", "-f", writeFile(t, k.home, "free.yaml", ownedConfigMap("free", "owner", uid, false)))
	k.must("apply", "-f", writeFile(t, k.home, "held.yaml", ownedConfigMap("held", "owner", uid, true, "example.com/hold")))

	del := k.start("delete", "configmap", "owner", "-n", "gc1", "--cascade=foreground", "--timeout=120s", "-v=6")
	stdout, stderr, done := del.stdout, del.stderr, del.done
	pollUntil(t, func() (bool, string) {
		_, errOut, _ := k.run("get", "configmap", "free", "-n", "gc1")
		held, _, _ := k.run("get", "configmap", "held", "-n", "gc1", "-o", "jsonpath={.metadata.deletionTimestamp}")
		return strings.Contains(errOut, "NotFound") && held != "", "the dependents: " + errOut + " held deleted at " + held
	})
	pollUntil(t, func() (bool, string) {
		return strings.Contains(stderr.String(), "DELETE https://"), "kubectl's DELETE: " + stderr.String()
	})
	if got := k.must("get", "configmap", "owner", "-n", "gc1", "-o", "jsonpath={.metadata.finalizers}"); got != `["foregroundDeletion"]` {
		t.Errorf("the owner's finalizers while a blocking dependent is there: %q", got)
	}
	select {
	case err := <-done:
		t.Fatalf("kubectl delete --cascade=foreground returned while a blocking dependent was there: %v %s%s", err, stdout.String(), stderr.String())
	default:
	}
	k.must("patch", "configmap", "held", "-n", "gc1", "--type", "json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
	select {
	case err := <-done:
		if err != nil || !strings.Contains(stdout.String(), `configmap "owner" deleted`) {
			t.Fatalf("kubectl delete --cascade=foreground: %v %s%s", err, stdout.String(), stderr.String())
		}
	case <-time.After(2 * waitLimit):
		t.Fatal("kubectl delete --cascade=foreground did not return")
	}
	k.fails(`Error from server (NotFound): configmaps "owner" not found`, "get", "configmap", "owner", "-n", "gc1")
}
