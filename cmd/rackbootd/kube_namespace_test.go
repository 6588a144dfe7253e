package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKubectlNamespaceDeleteAndPaging: kubectl pages a list with
// --chunk-size (limit and continue); `kubectl delete namespace` leaves the
// Namespace Terminating while an object's finalizer holds it (its other
// objects deleted, the ACI's ai-deprovision finalizer run by the
// controller), its status.conditions say what holds it as kube's
// namespace controller words them, a create in it is refused as
// kube-apiserver refuses it, and the waiting delete returns once the last
// finalizer is removed.
func TestKubectlNamespaceDeleteAndPaging(t *testing.T) {
	k := newKubeTest(t)
	manifests, _ := filepath.Abs("testdata/kube/ztp.yaml")
	k.must("create", "namespace", "kni21")
	k.must("apply", "-f", manifests)
	for _, n := range []string{"c1", "c2", "c3", "c4"} {
		k.must("create", "configmap", n, "-n", "kni21", "--from-literal=k="+n)
	}
	out, log, ok := k.run("get", "configmaps", "-n", "kni21", "--chunk-size=2", "-o", "name", "-v=6")
	if !ok {
		t.Fatalf("get --chunk-size: %s", log)
	}
	wantLines(t, "paged list", out, "configmap/c1", "configmap/c2", "configmap/c3", "configmap/c4", "configmap/my-baremetal-cluster-install-manifests")
	wantLines(t, "the pages kubectl asked for", log, "configmaps?limit=2 200", "configmaps?continue=")
	table := k.must("get", "configmaps", "-n", "kni21", "--chunk-size=2")
	wantLines(t, "paged table", table, "NAME", "DATA", "c1 ", "c4 ", "my-baremetal-cluster-install-manifests ")
	if n := strings.Count(table, "NAME"); n != 1 {
		t.Errorf("paged table with %d headers:\n%s", n, table)
	}

	held := writeFile(t, k.home, "held.yaml",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  namespace: kni21\n  finalizers: [example.com/hold]\n")
	k.must("apply", "-f", held)
	k.must("wait", "--for=jsonpath={.metadata.finalizers[0]}=agentclusterinstall.agent-install.openshift.io/ai-deprovision",
		"agentclusterinstall/kni21", "-n", "kni21", "--timeout=30s")

	wantLines(t, "delete --wait=false", k.must("delete", "namespace", "kni21", "--wait=false"), `namespace "kni21" deleted`)
	wantLines(t, "terminating", k.must("get", "namespace", "kni21"), "kni21   Terminating")
	k.fails(`error: failed to create configmap: configmaps "new" is forbidden: unable to create new content in namespace kni21 because it is being terminated`,
		"create", "configmap", "new", "-n", "kni21")
	k.fails(`Error from server (Forbidden): error when creating "`+held+`": configmaps "held" is forbidden: unable to create new content in namespace kni21 because it is being terminated`,
		"create", "-f", held)
	k.fails(`Error from server (NotFound): configmaps "c1" not found`, "get", "configmap", "c1", "-n", "kni21")
	wantLines(t, "the held object", k.must("get", "configmap", "held", "-n", "kni21", "-o", "jsonpath={.metadata.deletionTimestamp}"), "T")

	// kubectl delete namespace waits until the Namespace is gone.
	// -v=6 logs the DELETE once answered: the finalizer is removed after
	// that, or a kubectl slow to start would find the namespace gone.
	del := k.start("delete", "namespace", "kni21", "--timeout=120s", "-v=6")
	stdout, stderr, done := del.stdout, del.stderr, del.done
	pollUntil(t, func() (bool, string) {
		_, errOut, _ := k.run("get", "agentclusterinstalls", "-n", "kni21")
		return strings.Contains(errOut, "No resources found"), "the ACI after its deprovision: " + errOut
	})
	pollUntil(t, func() (bool, string) {
		return strings.Contains(stderr.String(), "DELETE https://"), "kubectl's DELETE: " + stderr.String()
	})
	select {
	case err := <-done:
		t.Fatalf("kubectl delete namespace returned while a finalizer held it: %v %s%s", err, stdout.String(), stderr.String())
	default:
	}
	// The Namespace says what holds it, as kube's namespace controller
	// does, in a get and in a list.
	conditions := `{range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\n"}{end}`
	want := "NamespaceDeletionDiscoveryFailure=False ResourcesDiscovered: All resources successfully discovered\n" +
		"NamespaceDeletionGroupVersionParsingFailure=False ParsedGroupVersions: All legacy kube types successfully parsed\n" +
		"NamespaceDeletionContentFailure=False ContentDeleted: All content successfully deleted, may be waiting on finalization\n" +
		"NamespaceContentRemaining=True SomeResourcesRemain: Some resources are remaining: configmaps. has 1 resource instances\n" +
		"NamespaceFinalizersRemaining=True SomeFinalizersRemain: Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances\n"
	if got := k.must("get", "namespace", "kni21", "-o", "jsonpath="+conditions); got != want {
		t.Errorf("the Terminating namespace's conditions:\n%s\nwant:\n%s", got, want)
	}
	if got := k.must("get", "namespaces", "-o", `jsonpath={range .items[?(@.metadata.name=="kni21")]}`+conditions+"{end}"); got != want {
		t.Errorf("the Terminating namespace's conditions in a list:\n%s\nwant:\n%s", got, want)
	}
	wantLines(t, "describe", k.must("describe", "namespace", "kni21"), "Status:       Terminating", "NamespaceContentRemaining")
	k.must("patch", "configmap", "held", "-n", "kni21", "--type", "json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
	select {
	case err := <-done:
		if err != nil || !strings.Contains(stdout.String(), `namespace "kni21" deleted`) {
			t.Fatalf("kubectl delete namespace: %v %s%s", err, stdout.String(), stderr.String())
		}
	case <-time.After(2 * waitLimit):
		t.Fatal("kubectl delete namespace did not return")
	}
	k.fails(`Error from server (NotFound): namespaces "kni21" not found`, "get", "namespace", "kni21")
}
