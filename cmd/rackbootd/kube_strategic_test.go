package main

import (
	"testing"
)

// TestKubectlStrategicMergePatch: the strategic merge patches kubectl
// sends for the built-in kinds are applied as kube-apiserver applies
// them: plain `kubectl apply` dropping a finalizer from the file removes
// it ($deleteFromPrimitiveList, $setElementOrder), `kubectl patch` (whose
// default type is strategic) adds to metadata.finalizers instead of
// replacing them (their patch strategy is merge; the patch's first), `$patch: replace`
// replaces a map; an unknown directive is the library's error as kube
// answers it (500, no reason, so kubectl prints no reason); a custom
// resource answers 415 as a CRD's does.
func TestKubectlStrategicMergePatch(t *testing.T) {
	k := newKubeTest(t)
	k.must("create", "namespace", "smp")
	const head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: smp\n  finalizers:\n"
	cm := writeFile(t, k.home, "cm.yaml", head+"  - example.com/a\n  - example.com/b\ndata:\n  a: \"1\"\n  b: \"2\"\n")
	wantLines(t, "apply", k.must("apply", "-f", cm), "configmap/cfg created")
	state := `jsonpath={.metadata.finalizers} {.data}`
	writeFile(t, k.home, "cm.yaml", head+"  - example.com/b\ndata:\n  a: \"1\"\n")
	wantLines(t, "apply without a", k.must("apply", "-f", cm), "configmap/cfg configured")
	if got := k.must("get", "cm", "cfg", "-n", "smp", "-o", state); got != `["example.com/b"] {"a":"1"}` {
		t.Errorf("after applying the file without finalizer a and key b: %s", got)
	}

	wantLines(t, "patch", k.must("patch", "cm", "cfg", "-n", "smp", "-p", `{"metadata":{"finalizers":["example.com/c"]}}`), "configmap/cfg patched")
	if got := k.must("get", "cm", "cfg", "-n", "smp", "-o", state); got != `["example.com/c","example.com/b"] {"a":"1"}` {
		t.Errorf("after a strategic patch adding finalizer c: %s", got)
	}
	k.must("patch", "cm", "cfg", "-n", "smp", "--type", "strategic", "-p", `{"data":{"$patch":"replace","z":"9"}}`)
	if got := k.must("get", "cm", "cfg", "-n", "smp", "-o", state); got != `["example.com/c","example.com/b"] {"z":"9"}` {
		t.Errorf("after $patch: replace on data: %s", got)
	}
	k.fails(`Error from server: unknown patch type: bogus in map: map[$patch:bogus]`,
		"patch", "cm", "cfg", "-n", "smp", "-p", `{"data":{"$patch":"bogus"}}`)
	k.must("patch", "cm", "cfg", "-n", "smp", "--type", "json", "-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)

	ie := writeFile(t, k.home, "ie.yaml", "apiVersion: agent-install.openshift.io/v1beta1\nkind: InfraEnv\nmetadata:\n  name: ie\n  namespace: smp\nspec:\n  pullSecretRef:\n    name: ps\n")
	k.must("create", "-f", ie)
	k.fails(`the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
		"patch", "infraenv", "ie", "-n", "smp", "--type", "strategic", "-p", `{"spec":{"sshAuthorizedKey":"k"}}`)
}
