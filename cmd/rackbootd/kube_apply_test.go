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

// TestKubectlServerSideApplyTyped: the field managers are typed by the
// kinds' schemas, as kube-apiserver types a CRD's: two managers applying
// a condition each to a Namespace's status (a list-type map keyed by
// type, as in k8s.io/api) both keep theirs, each owning its own item, and
// one that stops applying its condition removes only that one, where a
// list without a type is atomic and the second apply a conflict; an
// InfraEnv's nmStateConfigLabelSelector (x-kubernetes-map-type: atomic
// upstream) is one field, so a second manager applying other labels in
// it conflicts with the first instead of merging with its labels.
func TestKubectlServerSideApplyTyped(t *testing.T) {
	k := newKubeTest(t)
	k.must("create", "namespace", "typed")
	nsDoc := func(types ...string) string {
		doc := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: typed\nstatus:\n  conditions:\n"
		for _, typ := range types {
			doc += "  - type: " + typ + "\n    status: \"True\"\n    reason: Checked\n"
		}
		return doc
	}
	a := writeFile(t, k.home, "a.yaml", nsDoc("ExampleA"))
	b := writeFile(t, k.home, "b.yaml", nsDoc("ExampleB"))
	status := func(manager, file string) string {
		return k.must("apply", "--server-side", "--subresource=status", "--field-manager="+manager, "-f", file)
	}
	wantLines(t, "apply a", status("checker-a", a), "namespace/typed serverside-applied")
	wantLines(t, "apply b", status("checker-b", b), "namespace/typed serverside-applied")
	conditions := `jsonpath={.status.phase}{range .status.conditions[*]} {.type}={.status}{end}`
	if got := k.must("get", "ns", "typed", "-o", conditions); got != "Active ExampleA=True ExampleB=True" {
		t.Errorf("conditions after the two applies: %q", got)
	}
	wantLines(t, "managed fields", k.must("get", "ns", "typed", "-o", "yaml", "--show-managed-fields"),
		"manager: checker-a", "manager: checker-b", `k:{"type":"ExampleA"}:`, `k:{"type":"ExampleB"}:`, "subresource: status")
	writeFile(t, k.home, "b.yaml", nsDoc("ExampleC"))
	status("checker-b", b)
	if got := k.must("get", "ns", "typed", "-o", conditions); got != "Active ExampleA=True ExampleC=True" {
		t.Errorf("conditions after b applied ExampleC instead of ExampleB: %q", got)
	}

	const ieHead = "apiVersion: agent-install.openshift.io/v1beta1\nkind: InfraEnv\nmetadata:\n  name: ie\n  namespace: typed\n" +
		"spec:\n  pullSecretRef:\n    name: ps\n  nmStateConfigLabelSelector:\n    matchLabels:\n"
	ie := writeFile(t, k.home, "ie.yaml", ieHead+"      site: a\n")
	k.must("apply", "--server-side", "--field-manager=site", "-f", ie)
	writeFile(t, k.home, "ie.yaml", ieHead+"      rack: r1\n")
	k.fails(`error: Apply failed with 1 conflict: conflict with "site": .spec.nmStateConfigLabelSelector`,
		"apply", "--server-side", "--field-manager=rack", "-f", ie)
	if got := k.must("get", "infraenv", "ie", "-n", "typed", "-o", "jsonpath={.spec.nmStateConfigLabelSelector.matchLabels}"); got != `{"site":"a"}` {
		t.Errorf("the selector after the conflict: %s", got)
	}
}

// TestKubectlServerSideApplyUndeclared: server-side apply of a field the
// kind's schema does not declare, or of two items with the same key in a
// list-type map, is refused by the field manager as kube-apiserver's
// refuses it (where other writes prune the field or warn), and nothing
// changes.
func TestKubectlServerSideApplyUndeclared(t *testing.T) {
	k := newKubeTest(t)
	k.must("create", "namespace", "undecl")
	const ieHead = "apiVersion: agent-install.openshift.io/v1beta1\nkind: InfraEnv\nmetadata:\n  name: ie\n  namespace: undecl\nspec:\n  pullSecretRef:\n    name: ps\n"
	ie := writeFile(t, k.home, "ie.yaml", ieHead+"  sshAuthorizedKey: k1\n")
	k.must("apply", "--server-side", "-f", ie)
	writeFile(t, k.home, "ie.yaml", ieHead+"  sshAuthorizedKey: k2\n  foo: bar\n")
	for _, validate := range []string{"--validate=strict", "--validate=false"} {
		k.fails(`Error from server: failed to create typed patch object (undecl/ie; agent-install.openshift.io/v1beta1, Kind=InfraEnv): .spec.foo: field not declared in schema`,
			"apply", "--server-side", validate, "-f", ie)
	}
	if got := k.must("get", "infraenv", "ie", "-n", "undecl", "-o", "jsonpath={.spec.sshAuthorizedKey}"); got != "k1" {
		t.Errorf("sshAuthorizedKey after the refused apply: %q", got)
	}

	ns := writeFile(t, k.home, "ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: undecl\nstatus:\n  conditions:\n"+
		"  - type: ExampleA\n    status: \"True\"\n  - type: ExampleA\n    status: \"False\"\n")
	k.fails(`Error from server: failed to create typed patch object (/undecl; /v1, Kind=Namespace): .status.conditions: duplicate entries for key [type="ExampleA"]`,
		"apply", "--server-side", "--subresource=status", "-f", ns)
	if got := k.must("get", "ns", "undecl", "-o", "jsonpath={.status.conditions}"); strings.Contains(got, "ExampleA") {
		t.Errorf("conditions after the refused apply: %s", got)
	}
}
