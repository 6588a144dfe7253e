package kubeapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

const infraEnvsPath = "/apis/agent-install.openshift.io/v1beta1/namespaces/ns/infraenvs"

// send is do with the response's Warning headers.
func (f *fixture) send(method, path, ctype, body string) (int, string, []string) {
	f.t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+admin)
	req.Header.Set("Content-Type", ctype)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp.Header.Values("Warning")
}

func infraEnv(name, spec string) string {
	return `{"apiVersion":"agent-install.openshift.io/v1beta1","kind":"InfraEnv","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

// Unknown fields (in spec, in lists, in metadata) are refused with
// fieldValidation=Strict as kube-apiserver refuses them, writing nothing;
// a wrong type or a value out of the enum is Invalid whatever the directive; maps
// (additionalProperties) and the open status take any key.
func TestStrictFieldValidationRefuses(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	before := f.index()
	for name, tc := range map[string]struct {
		query, body string
		code        int
		want        string
	}{
		"spec": {"Strict", infraEnv("a", `{"pullSecretRef":{"name":"ps"},"sshAuthorisedKey":"k","proxy":{"httpProxi":"x"}}`), 400,
			`InfraEnv in version \"v1beta1\" cannot be handled as a InfraEnv: strict decoding error: unknown field \"spec.proxy.httpProxi\", unknown field \"spec.sshAuthorisedKey\"`},
		"list item": {"Strict", infraEnv("a", `{"kernelArguments":[{"operation":"append","valu":"quiet"}]}`), 400,
			`unknown field \"spec.kernelArguments[0].valu\"`},
		"metadata": {"Strict", `{"apiVersion":"agent-install.openshift.io/v1beta1","kind":"InfraEnv","metadata":{"name":"a","label":{}}}`, 400,
			`unknown field \"metadata.label\"`},
		"top level": {"Strict", `{"apiVersion":"agent-install.openshift.io/v1beta1","kind":"InfraEnv","metadata":{"name":"a"},"sepc":{}}`, 400,
			`unknown field \"sepc\"`},
		"wrong type": {"Ignore", infraEnv("a", `{"pullSecretRef":{"name":"ps"},"agentApproval":{"autoApprove":"yes"}}`), 422,
			`InfraEnv.agent-install.openshift.io \"a\" is invalid: spec.agentApproval.autoApprove: Invalid value: \"string\": spec.agentApproval.autoApprove in body must be of type boolean: \"string\"`},
		"not an integer": {"Strict", infraEnv("a", `{"networkDiscoveryDelaySeconds":1.5}`), 422,
			`spec.networkDiscoveryDelaySeconds in body must be of type integer: \"number\"`},
		"not in the enum": {"Ignore", infraEnv("a", `{"ipxeScriptType":"Sometimes"}`), 422,
			`spec.ipxeScriptType: Unsupported value: \"Sometimes\": supported values: \"\", \"DiscoveryImageAlways\", \"BootOrderControl\"`},
		"bad directive": {"Loose", infraEnv("a", `{}`), 400, `fieldValidation must be one of`},
	} {
		code, body, _ := f.send("POST", infraEnvsPath+"?fieldValidation="+tc.query, "application/json", tc.body)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s, want %d with %s", name, code, body, tc.code, tc.want)
		}
	}
	// An open object (x-kubernetes-preserve-unknown-fields) takes any key
	// and still checks its declared ones.
	code, body, _ := f.send("POST", "/apis/hive.openshift.io/v1/namespaces/ns/clusterdeployments?fieldValidation=Strict", "application/json",
		`{"apiVersion":"hive.openshift.io/v1","kind":"ClusterDeployment","metadata":{"name":"a"},"spec":{"platform":{"aws":{"region":"x"},"agentBareMetal":{"agentSelector":{},"agentSelectr":{}}}}}`)
	if want := `strict decoding error: unknown field \"spec.platform.agentBareMetal.agentSelectr\"`; code != 400 || !strings.Contains(body, want) {
		t.Errorf("open object: %d %s, want 400 with %s", code, body, want)
	}
	code, body, _ = f.send("POST", infraEnvsPath+"?fieldValidation=Strict", "application/json",
		infraEnv("ok", `{"pullSecretRef":{"name":"ps"},"agentLabels":{"any-key":"v"},"networkDiscoveryDelaySeconds":5.0,"ipxeScriptType":"BootOrderControl"}`))
	if code != 201 {
		t.Fatalf("a valid InfraEnv: %d %s", code, body)
	}
	mid := f.index()
	if mid == before {
		t.Fatal("the valid InfraEnv was not written")
	}
	code, body, _ = f.send("PATCH", infraEnvsPath+"/ok?fieldValidation=Strict", "application/merge-patch+json", `{"spec":{"cpuArchitecure":"aarch64"}}`)
	if code != 400 || !strings.Contains(body, `unknown field \"spec.cpuArchitecure\"`) {
		t.Errorf("merge patch: %d %s", code, body)
	}
	code, body, _ = f.send("PUT", infraEnvsPath+"/ok?fieldValidation=Strict", "application/json", infraEnv("ok", `{"foo":1}`))
	if code != 400 || !strings.Contains(body, `unknown field \"spec.foo\"`) {
		t.Errorf("update: %d %s", code, body)
	}
	if after := f.index(); after != mid {
		t.Errorf("refused requests moved the log from %d to %d", mid, after)
	}
}

// Warn (the default) stores the object pruned of its unknown fields and
// names each in a Warning header; Ignore prunes them silently (as
// kube-apiserver prunes a custom resource along its structural schema).
func TestFieldValidationWarnAndIgnore(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	code, body, warn := f.send("POST", infraEnvsPath, "application/json", infraEnv("w", `{"pullSecretRef":{"name":"ps"},"foo":1,"bar":{}}`))
	if code != 201 {
		t.Fatalf("Warn: %d %s", code, body)
	}
	want := []string{`299 - "unknown field \"spec.bar\""`, `299 - "unknown field \"spec.foo\""`}
	if strings.Join(warn, "|") != strings.Join(want, "|") {
		t.Errorf("Warning headers %q, want %q", warn, want)
	}
	code, body, warn = f.send("POST", infraEnvsPath+"?fieldValidation=Ignore", "application/json", infraEnv("i", `{"pullSecretRef":{"name":"ps"},"foo":1}`))
	if code != 201 || len(warn) != 0 {
		t.Errorf("Ignore: %d %s warnings %q", code, body, warn)
	}
	for _, name := range []string{"w", "i"} {
		_, got := f.do("GET", infraEnvsPath+"/"+name, "", "")
		if want := `"spec":{"cpuArchitecture":"x86_64","ipxeScriptType":"DiscoveryImageAlways","pullSecretRef":{"name":"ps"}}`; !strings.Contains(got, want) {
			t.Errorf("%s stored as %s, want the unknown fields pruned: %s", name, got, want)
		}
	}
}

// The schema's defaults fill the fields a create, an update or a patch
// leaves out or sets to null, where their parent object is there (in
// list items too), and never replace a value that is set.
func TestSchemaDefaultsApplied(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	code, body, _ := f.send("POST", infraEnvsPath, "application/json",
		infraEnv("d", `{"pullSecretRef":{},"cpuArchitecture":"aarch64","ipxeScriptType":null}`))
	if want := `"spec":{"cpuArchitecture":"aarch64","ipxeScriptType":"DiscoveryImageAlways","pullSecretRef":{"name":""}}`; code != 201 || !strings.Contains(body, want) {
		t.Errorf("create: %d %s, want %s", code, body, want)
	}
	code, body, _ = f.send("PATCH", infraEnvsPath+"/d", "application/merge-patch+json", `{"spec":{"cpuArchitecture":null,"agentApproval":{}}}`)
	if want := `"spec":{"agentApproval":{"autoApprove":false},"cpuArchitecture":"x86_64",`; code != 200 || !strings.Contains(body, want) {
		t.Errorf("merge patch: %d %s, want %s", code, body, want)
	}
	code, body, _ = f.send("POST", acisPath, "application/json", strings.Replace(aci(`{}`), `"networking"`,
		`"compute":[{"name":"worker"},{"name":"infra","hyperthreading":"Disabled"}],"networking"`, 1))
	if want := `"compute":[{"hyperthreading":"Enabled","name":"worker"},{"hyperthreading":"Disabled","name":"infra"}]`; code != 201 || !strings.Contains(body, want) {
		t.Errorf("list items: %d %s, want %s", code, body, want)
	}
	if strings.Contains(body, `"controlPlane"`) {
		t.Errorf("a default was set in an object that is not there: %s", body)
	}
}

// The group version's OpenAPI document holds the kind's schema (rackboot's
// schema files), tagged with its group, version and kind.
func TestOpenAPISchemas(t *testing.T) {
	f := newFixture(t, 0)
	code, body := f.do("GET", "/openapi/v3/apis/extensions.hive.openshift.io/v1beta1", "", "")
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				GVK        []map[string]string `json:"x-kubernetes-group-version-kind"`
				Properties map[string]struct {
					Description string `json:"description"`
					Properties  map[string]struct {
						Description string `json:"description"`
					} `json:"properties"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	s, ok := doc.Components.Schemas["io.openshift.hive.extensions.v1beta1.AgentClusterInstall"]
	if !ok {
		t.Fatalf("no AgentClusterInstall schema in %s", body)
	}
	if len(s.GVK) != 1 || s.GVK[0]["group"] != "extensions.hive.openshift.io" || s.GVK[0]["kind"] != "AgentClusterInstall" {
		t.Errorf("group-version-kind %v", s.GVK)
	}
	if d := s.Properties["spec"].Properties["holdInstallation"].Description; d != "true: the installation does not start, even when everything is ready." {
		t.Errorf("holdInstallation's description %q", d)
	}
	if d := s.Properties["metadata"].Description; !strings.HasPrefix(d, "The object's name, namespace, labels") {
		t.Errorf("metadata's description %q", d)
	}
}

// A field a JSON body (a create, an update, a merge patch) sets twice is
// refused under Strict as kube-apiserver's strict decoding refuses it,
// before the unknown fields; Warn keeps the last value with a Warning,
// Ignore silently.
func TestDuplicateFields(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	before := f.index()
	dup := `{"apiVersion":"agent-install.openshift.io/v1beta1","kind":"InfraEnv","metadata":{"name":"d"},` +
		`"spec":{"pullSecretRef":{"name":"ps"},"sshAuthorizedKey":"k1","sshAuthorizedKey":"k2","foo":1}}`
	code, body, _ := f.send("POST", infraEnvsPath+"?fieldValidation=Strict", "application/json", dup)
	if want := `InfraEnv in version \"v1beta1\" cannot be handled as a InfraEnv: strict decoding error: ` +
		`duplicate field \"spec.sshAuthorizedKey\", unknown field \"spec.foo\"`; code != 400 || !strings.Contains(body, want) {
		t.Errorf("create: %d %s, want 400 with %s", code, body, want)
	}
	if after := f.index(); after != before {
		t.Errorf("the refused create moved the log from %d to %d", before, after)
	}
	code, body, warn := f.send("POST", infraEnvsPath, "application/json", dup)
	want := []string{`299 - "duplicate field \"spec.sshAuthorizedKey\""`, `299 - "unknown field \"spec.foo\""`}
	if code != 201 || strings.Join(warn, "|") != strings.Join(want, "|") || !strings.Contains(body, `"sshAuthorizedKey":"k2"`) {
		t.Errorf("Warn: %d %s with %q, want 201, k2 and %q", code, body, warn, want)
	}
	code, body, _ = f.send("PUT", infraEnvsPath+"/d?fieldValidation=Strict", "application/json", strings.Replace(dup, `,"foo":1`, "", 1))
	if want := `strict decoding error: duplicate field \"spec.sshAuthorizedKey\"`; code != 400 || !strings.Contains(body, want) {
		t.Errorf("update: %d %s, want 400 with %s", code, body, want)
	}
	code, body, _ = f.send("PATCH", infraEnvsPath+"/d?fieldValidation=Strict", "application/merge-patch+json",
		`{"metadata":{"labels":{"a":"1","a":"2"}}}`)
	if want := `strict decoding error: duplicate field \"metadata.labels.a\"`; code != 400 || !strings.Contains(body, want) {
		t.Errorf("merge patch: %d %s, want 400 with %s", code, body, want)
	}
	code, body, warn = f.send("PATCH", infraEnvsPath+"/d?fieldValidation=Ignore", "application/merge-patch+json",
		`{"metadata":{"labels":{"a":"1","a":"2"}}}`)
	if code != 200 || len(warn) != 0 || !strings.Contains(body, `"labels":{"a":"2"}`) {
		t.Errorf("Ignore: %d %s with %q", code, body, warn)
	}
}
