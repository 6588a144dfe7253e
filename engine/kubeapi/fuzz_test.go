package kubeapi_test

import (
	"encoding/json"
	"testing"
)

// Whatever a client sends as an object or a patch (JSON, YAML, protobuf;
// to kinds with schemas, under each fieldValidation directive), the API
// answers with the object or a Status of the same code, never panics, and
// a refused request appends nothing.
func FuzzObjectDecoders(f *testing.F) {
	for _, s := range []string{
		`{"metadata":{"name":"a"},"spec":{"approved":true}}`,
		`{"apiVersion":"agent-install.openshift.io/v1beta1","kind":"Agent","metadata":{"name":"b","labels":{"x":"y"}}}`,
		`{"metadata":{"generateName":"g-"}}`,
		`{"metadata":{"name":"s"},"stringData":{"k":"v"},"data":{"d":"dg=="}}`,
		`[{"op":"add","path":"/spec/x","value":1}]`,
		`{"metadata":{"name":"a","resourceVersion":"x"}}`,
		`null`, `{}`, `{"metadata":[]}`,
		`{"metadata":{"name":"c"},"spec":{"networking":{"clusterNetwork":[{"cidr":"10.128.0.0/33"}]},"provisionRequirements":{"controlPlaneAgents":"1"}}}`,
		`{"metadata":{"name":"n"},"spec":{"interfaces":[{"name":"eth0","macAddress":"52:54:00:00:00:01"}],"config":{}}}`,
		`{"metadata":{"name":"h"},"spec":{"online":true,"bootMACAddress":"52:54:00:00:00:zz","bmc":{"address":"x","credentialsName":"c"}}}`,
		`{"metadata":{"name":"i"},"spec":{"pullSecretRef":{"name":"ps"},"sshAuthorisedKey":"k","kernelArguments":[{"operation":"append","value":"a b"}]}}`,
		"metadata:\n  name: y\nspec:\n  approved: yes\n  foo: 1\n",
	} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, body string, which uint8) {
		fx := newFixture(t, 0)
		fx.setup()
		fx.createAgent("a")
		before := fx.index()
		type call struct{ method, path, ctype string }
		calls := []call{
			{"POST", agentsPath, "application/json"},
			{"PUT", agentsPath + "/a", "application/json"},
			{"PATCH", agentsPath + "/a", "application/merge-patch+json"},
			{"PATCH", agentsPath + "/a", "application/json-patch+json"},
			{"PATCH", agentsPath + "/a", "application/apply-patch+yaml"},
			{"POST", "/api/v1/namespaces/ns/secrets", "application/json"},
			{"POST", "/api/v1/namespaces/ns/configmaps", "application/vnd.kubernetes.protobuf"},
			{"POST", infraEnvsPath + "?fieldValidation=Strict", "application/json"},
			{"POST", acisPath + "?fieldValidation=Strict", "application/json"},
			{"POST", nmstatePath + "?fieldValidation=Warn", "application/json"},
			{"POST", bmhPath + "?fieldValidation=Ignore", "application/json"},
			{"PATCH", agentsPath + "/a?fieldValidation=Strict", "application/merge-patch+json"},
			{"PATCH", agentsPath + "/a?fieldValidation=Strict", "application/apply-patch+yaml"},
			{"POST", "/api/v1/namespaces/ns/secrets?fieldValidation=Strict", "application/vnd.kubernetes.protobuf"},
		}
		c := calls[int(which)%len(calls)]
		code, out := fx.do(c.method, c.path, c.ctype, body)
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%s %s: %d, not JSON: %q", c.method, c.path, code, out)
		}
		if code >= 300 {
			if v["kind"] != "Status" || v["code"] != float64(code) {
				t.Fatalf("%s %s: %d with %s", c.method, c.path, code, out)
			}
			if after := fx.index(); after != before {
				t.Fatalf("%s %s refused (%d) but the log moved from %d to %d", c.method, c.path, code, before, after)
			}
		}
	})
}
