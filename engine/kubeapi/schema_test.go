package kubeapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// openAPIIndex is /openapi/v3: the documents by group version path.
func (f *fixture) openAPIDocs() map[string]map[string]any {
	f.t.Helper()
	code, body := f.do("GET", "/openapi/v3", "", "")
	if code != 200 {
		f.t.Fatalf("/openapi/v3: %d %s", code, body)
	}
	var idx struct {
		Paths map[string]struct {
			URL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(body), &idx); err != nil {
		f.t.Fatal(err)
	}
	docs := map[string]map[string]any{}
	for p, u := range idx.Paths {
		code, body := f.do("GET", u.URL, "", "")
		if code != 200 {
			f.t.Fatalf("%s: %d %s", u.URL, code, body)
		}
		var d map[string]any
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			f.t.Fatal(err)
		}
		docs[p] = d
	}
	return docs
}

// Every served kind has a schema in its group version's document, named
// as kube-apiserver names it and tagged with its group, version and kind;
// every field of every schema is described and every pattern compiles.
func TestEveryKindHasASchema(t *testing.T) {
	f := newFixture(t, 0)
	docs := f.openAPIDocs()
	want := map[string][]string{
		"api/v1":                    {"io.k8s.api.core.v1.Namespace", "io.k8s.api.core.v1.Secret", "io.k8s.api.core.v1.ConfigMap", "io.k8s.api.core.v1.Event"},
		"apis/hive.openshift.io/v1": {"io.openshift.hive.v1.ClusterImageSet", "io.openshift.hive.v1.ClusterDeployment"},
		"apis/extensions.hive.openshift.io/v1beta1": {"io.openshift.hive.extensions.v1beta1.AgentClusterInstall"},
		"apis/agent-install.openshift.io/v1beta1": {"io.openshift.agent-install.v1beta1.InfraEnv", "io.openshift.agent-install.v1beta1.NMStateConfig",
			"io.openshift.agent-install.v1beta1.Agent", "io.openshift.agent-install.v1beta1.AgentServiceConfig"},
		"apis/metal3.io/v1alpha1": {"io.metal3.v1alpha1.BareMetalHost"},
	}
	for gv, names := range want {
		d := docs[gv]
		if d == nil {
			t.Errorf("no OpenAPI document for %s (have %d)", gv, len(docs))
			continue
		}
		schemas, _ := d["components"].(map[string]any)["schemas"].(map[string]any)
		if len(schemas) != len(names) {
			t.Errorf("%s: %d schemas, want %d", gv, len(schemas), len(names))
		}
		for _, n := range names {
			s, _ := schemas[n].(map[string]any)
			if s == nil {
				t.Errorf("%s: no schema %s", gv, n)
				continue
			}
			gvk, _ := s["x-kubernetes-group-version-kind"].([]any)
			if len(gvk) != 1 || !strings.HasSuffix(n, "."+gvk[0].(map[string]any)["kind"].(string)) {
				t.Errorf("%s: group-version-kind %v", n, gvk)
			}
			wellFormed(t, n, s)
		}
	}
}

func wellFormed(t *testing.T, path string, s map[string]any) {
	t.Helper()
	if d, _ := s["description"].(string); d == "" {
		t.Errorf("%s: no description", path)
	}
	if p, ok := s["pattern"].(string); ok {
		if _, err := regexp.Compile(p); err != nil {
			t.Errorf("%s: pattern %q: %v", path, p, err)
		}
	}
	props, _ := s["properties"].(map[string]any)
	for k, v := range props {
		wellFormed(t, path+"."+k, v.(map[string]any))
	}
	if s["x-kubernetes-list-type"] == "map" {
		listMapKeysRequired(t, path, s)
	}
	if items, ok := s["items"].(map[string]any); ok {
		if props, ok := items["properties"].(map[string]any); ok {
			for k, v := range props {
				wellFormed(t, path+"[]."+k, v.(map[string]any))
			}
		}
	}
}

// listMapKeysRequired checks a list-type map as kube-apiserver checks a
// CRD's: keys given, each a required field of the items or one with a
// default.
func listMapKeysRequired(t *testing.T, path string, s map[string]any) {
	t.Helper()
	keys, _ := s["x-kubernetes-list-map-keys"].([]any)
	items, _ := s["items"].(map[string]any)
	props, _ := items["properties"].(map[string]any)
	req, _ := items["required"].([]any)
	if len(keys) == 0 {
		t.Errorf("%s: a list-type map without list-map-keys", path)
	}
	for _, k := range keys {
		p, _ := props[k.(string)].(map[string]any)
		if _, def := p["default"]; p == nil || !def && !slices.Contains(req, k) {
			t.Errorf("%s: list-map key %s is not a required field of the items, nor has a default", path, k)
		}
	}
}

// /openapi/v2 is the empty document in the protobuf form kubectl asks for
// (see TestKubectlBadInput for what kubectl makes of it).
func TestOpenAPIV2Empty(t *testing.T) {
	f := newFixture(t, 0)
	req, err := http.NewRequest("GET", f.srv.URL+"/openapi/v2", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+admin)
	req.Header.Set("Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || len(b) != 0 || ct != "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" {
		t.Errorf("%d %q %q", resp.StatusCode, ct, b)
	}
}
