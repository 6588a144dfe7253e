package kubeapi_test

import (
	"strings"
	"testing"
)

// A field the kind's schema requires, left out (or null) in a create, an
// update, a merge or JSON patch or a server-side apply, is 422 Invalid
// with a Required value cause at the field's path, as kube-apiserver
// refuses it for a CRD, whatever the fieldValidation directive; nothing
// is written.
func TestRequiredFieldsRefused(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	f.createAgent("a1")
	before := f.index()
	agent := func(name, spec string) string {
		return `{"apiVersion":"agent-install.openshift.io/v1beta1","kind":"Agent","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
	}
	for name, tc := range map[string]struct{ method, path, ctype, body, want string }{
		"create": {"POST", agentsPath + "?fieldValidation=Ignore", "application/json", agent("a2", `{"approved":true}`),
			`Agent.agent-install.openshift.io \"a2\" is invalid: spec.role: Required value`},
		"create null": {"POST", agentsPath, "application/json", agent("a2", `{"approved":null,"role":"worker"}`),
			`Agent.agent-install.openshift.io \"a2\" is invalid: spec.approved: Required value`},
		"update": {"PUT", agentsPath + "/a1", "application/json", agent("a1", `{"role":"worker"}`),
			`Agent.agent-install.openshift.io \"a1\" is invalid: spec.approved: Required value`},
		"merge patch": {"PATCH", agentsPath + "/a1", "application/merge-patch+json", `{"spec":{"role":null}}`,
			`spec.role: Required value`},
		"json patch": {"PATCH", agentsPath + "/a1", "application/json-patch+json", `[{"op":"remove","path":"/spec/approved"}]`,
			`spec.approved: Required value`},
		"apply": {"PATCH", agentsPath + "/a3?fieldManager=t", "application/apply-patch+yaml",
			"apiVersion: agent-install.openshift.io/v1beta1\nkind: Agent\nmetadata:\n  name: a3\nspec:\n  hostname: h\n",
			`Agent.agent-install.openshift.io \"a3\" is invalid: [spec.approved: Required value, spec.role: Required value]`},
		"list item": {"POST", nmstatePath, "application/json", nmstate(`[{"name":"eth0"}]`),
			`NMStateConfig.agent-install.openshift.io \"n\" is invalid: spec.interfaces[0].macAddress: Required value`},
		"top level": {"POST", acisPath, "application/json",
			`{"apiVersion":"extensions.hive.openshift.io/v1beta1","kind":"AgentClusterInstall","metadata":{"name":"c"}}`,
			`AgentClusterInstall.extensions.hive.openshift.io \"c\" is invalid: spec: Required value`},
	} {
		code, body := f.do(tc.method, tc.path, tc.ctype, tc.body)
		if code != 422 || !strings.Contains(body, tc.want) || !strings.Contains(body, `"reason":"FieldValueRequired"`) {
			t.Errorf("%s: %d %s, want 422 with %s", name, code, body, tc.want)
		}
	}
	if after := f.index(); after != before {
		t.Errorf("refused writes moved the log from %d to %d", before, after)
	}
}
