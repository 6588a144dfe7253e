package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestKubectlServerSideApply: `kubectl apply --server-side` creates and
// updates with its field manager, a field another manager set is a
// conflict printed as kubectl prints kube-apiserver's (and nothing
// changes), --force-conflicts takes it, a field the manager stops
// applying is removed, and plain client-side apply keeps working beside
// it.
func TestKubectlServerSideApply(t *testing.T) {
	k := newKubeTest(t)
	k.must("create", "namespace", "ssa")
	cm := filepath.Join(k.home, "cm.yaml")
	const head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: ssa\ndata:\n"
	writeFile(t, k.home, "cm.yaml", head+"  a: \"1\"\n  b: \"2\"\n")
	wantLines(t, "apply --server-side", k.must("apply", "--server-side", "-f", cm), "configmap/cfg serverside-applied")
	wantLines(t, "managed fields", k.must("get", "cm", "cfg", "-n", "ssa", "-o", "yaml", "--show-managed-fields"),
		"manager: kubectl\n", "operation: Apply", "f:a: {}", "f:b: {}")

	k.must("patch", "cm", "cfg", "-n", "ssa", "--type", "merge", "-p", `{"data":{"a":"patched"}}`)
	wantLines(t, "managers", k.must("get", "cm", "cfg", "-n", "ssa", "-o", "jsonpath={range .metadata.managedFields[*]}{.manager}/{.operation} {end}"),
		"kubectl/Apply", "kubectl-patch/Update")

	writeFile(t, k.home, "cm.yaml", head+"  a: \"1\"\n  b: \"2\"\n  c: \"3\"\n")
	k.fails(`error: Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: .data.a
Please review the fields above--they currently have other managers.`, "apply", "--server-side", "-f", cm)
	wantLines(t, "after the conflict", k.must("get", "cm", "cfg", "-n", "ssa", "-o", "jsonpath={.data}"), `{"a":"patched","b":"2"}`)

	wantLines(t, "--force-conflicts", k.must("apply", "--server-side", "--force-conflicts", "-f", cm), "configmap/cfg serverside-applied")
	wantLines(t, "forced", k.must("get", "cm", "cfg", "-n", "ssa", "-o", "jsonpath={.data}"), `{"a":"1","b":"2","c":"3"}`)

	writeFile(t, k.home, "cm.yaml", head+"  a: \"1\"\n")
	k.must("apply", "--server-side", "-f", cm)
	wantLines(t, "fields no longer applied", k.must("get", "cm", "cfg", "-n", "ssa", "-o", "jsonpath={.data}"), `{"a":"1"}`)

	// Client-side apply (last-applied-configuration and a merge patch) on
	// a CRD kind, then the same object applied server-side.
	ie := filepath.Join(k.home, "ie.yaml")
	const ieHead = "apiVersion: agent-install.openshift.io/v1beta1\nkind: InfraEnv\nmetadata:\n  name: ie\n  namespace: ssa\nspec:\n  pullSecretRef:\n    name: ps\n"
	writeFile(t, k.home, "ie.yaml", ieHead+"  sshAuthorizedKey: k1\n")
	wantLines(t, "apply", k.must("apply", "-f", ie), "infraenv.agent-install.openshift.io/ie created")
	writeFile(t, k.home, "ie.yaml", ieHead+"  sshAuthorizedKey: k2\n")
	wantLines(t, "apply a change", k.must("apply", "-f", ie), "infraenv.agent-install.openshift.io/ie configured")
	out := k.must("get", "infraenv", "ie", "-n", "ssa", "-o", "jsonpath={.spec.sshAuthorizedKey} {range .metadata.managedFields[*]}{.manager} {end}")
	wantLines(t, "client-side apply", out, "k2 ", "kubectl-client-side-apply")
	wantLines(t, "server-side after client-side", k.must("apply", "--server-side", "-f", ie), "infraenv.agent-install.openshift.io/ie serverside-applied")
	if got := k.must("get", "infraenv", "ie", "-n", "ssa", "-o", "jsonpath={.spec.sshAuthorizedKey}"); strings.TrimSpace(got) != "k2" {
		t.Errorf("sshAuthorizedKey after the server-side apply: %q", got)
	}
}
