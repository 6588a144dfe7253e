package kubeapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// managed returns the managers of an object's managedFields with their
// operations, and the object.
func (f *fixture) managed(path string) (map[string]string, map[string]any) {
	f.t.Helper()
	code, body := f.do("GET", path, "", "")
	if code != http.StatusOK {
		f.t.Fatalf("GET %s: %d %s", path, code, body)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(body), &obj); err != nil {
		f.t.Fatal(err)
	}
	out := map[string]string{}
	md, _ := obj["metadata"].(map[string]any)
	mf, _ := md["managedFields"].([]any)
	for _, e := range mf {
		m, _ := e.(map[string]any)
		out[m["manager"].(string)] = m["operation"].(string)
	}
	return out, obj
}

func spec(obj map[string]any) map[string]any {
	s, _ := obj["spec"].(map[string]any)
	return s
}

// Every write records its manager (fieldManager, else the User-Agent's
// product); an apply that takes another manager's field is a 409 naming
// the manager and the field, and writes nothing; force takes it; a field
// the applier stops applying is removed.
func TestServerSideApply(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	f.createAgent("a1") // Go-http-client User-Agent
	p := agentsPath + "/a1"
	if code, body := f.do("PATCH", p+"?fieldManager=kubectl-patch", "application/merge-patch+json", `{"spec":{"role":"master"}}`); code != 200 {
		t.Fatalf("merge patch: %d %s", code, body)
	}
	m, _ := f.managed(p)
	if m["Go-http-client"] != "Update" || m["kubectl-patch"] != "Update" {
		t.Fatalf("managers %v, want Go-http-client and kubectl-patch (Update)", m)
	}

	apply := func(manager, force, yaml string) (int, string) {
		return f.do("PATCH", p+"?fieldManager="+manager+force, "application/apply-patch+yaml", yaml)
	}
	const base = "apiVersion: agent-install.openshift.io/v1beta1\nkind: Agent\nmetadata:\n  name: a1\n"
	if code, body := apply("ssa", "", base+"spec:\n  hostname: h1\n  installerArgs: x\n"); code != 200 {
		t.Fatalf("apply: %d %s", code, body)
	}
	before := f.index()
	code, body := apply("ssa", "", base+"spec:\n  hostname: h1\n  role: worker\n")
	if code != http.StatusConflict || !strings.Contains(body, `Apply failed with 1 conflict: conflict with \"kubectl-patch\" using agent-install.openshift.io/v1beta1: .spec.role`) {
		t.Fatalf("conflicting apply: %d %s", code, body)
	}
	if !strings.Contains(body, `"field":".spec.role"`) || !strings.Contains(body, `"reason":"FieldManagerConflict"`) {
		t.Errorf("conflict causes missing: %s", body)
	}
	if f.index() != before {
		t.Error("a refused apply wrote to the log")
	}
	if code, body := apply("ssa", "&force=true", base+"spec:\n  hostname: h1\n  role: worker\n"); code != 200 {
		t.Fatalf("forced apply: %d %s", code, body)
	}
	m, obj := f.managed(p)
	s := spec(obj)
	if s["role"] != "worker" || s["hostname"] != "h1" {
		t.Errorf("spec after forced apply: %v", s)
	}
	if _, ok := s["installerArgs"]; ok {
		t.Errorf("installerArgs, no longer applied, still there: %v", s)
	}
	if s["approved"] != false {
		t.Errorf("approved, set by another manager, lost: %v", s)
	}
	if m["ssa"] != "Apply" {
		t.Errorf("managers %v, want ssa (Apply)", m)
	}
	if code, body := f.do("PATCH", p, "application/apply-patch+yaml", base); code != 400 || !strings.Contains(body, "fieldManager: Required value") {
		t.Errorf("apply without fieldManager: %d %s", code, body)
	}
}

// An apply creates a missing object, managed by its applier.
func TestServerSideApplyCreates(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	code, body := f.do("PATCH", agentsPath+"/new?fieldManager=kubectl", "application/apply-patch+yaml",
		"apiVersion: agent-install.openshift.io/v1beta1\nkind: Agent\nmetadata:\n  name: new\nspec:\n  approved: true\n  role: worker\n")
	if code != http.StatusCreated {
		t.Fatalf("apply create: %d %s", code, body)
	}
	m, obj := f.managed(agentsPath + "/new")
	if m["kubectl"] != "Apply" || spec(obj)["approved"] != true {
		t.Errorf("created by apply: managers %v, spec %v", m, spec(obj))
	}
}

// A key set twice in an applied configuration is refused under
// fieldValidation=Strict in kube-apiserver's words (once the field
// manager merged it) and writes nothing; under Warn, the default, the
// apply goes through with a Warning per line, the last value kept.
func TestServerSideApplyKeySetTwice(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	const doc = "apiVersion: agent-install.openshift.io/v1beta1\nkind: Agent\nmetadata:\n  name: twice\nspec:\n  approved: true\n  role: master\n  role: worker\n"
	p := agentsPath + "/twice?fieldManager=kubectl"
	code, body := f.do("PATCH", p+"&fieldValidation=Strict", "application/apply-patch+yaml", doc)
	want := `error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 8: key \"role\" already set in map`
	if code != http.StatusBadRequest || !strings.Contains(body, want) {
		t.Errorf("Strict: %d %s, want 400 with %s", code, body, want)
	}
	if code, _ := f.do("GET", agentsPath+"/twice", "", ""); code != http.StatusNotFound {
		t.Errorf("the Agent after the refused apply: %d, want 404", code)
	}

	req, err := http.NewRequest("PATCH", f.srv.URL+p, strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+admin)
	req.Header.Set("Content-Type", "application/apply-patch+yaml")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if w := resp.Header.Values("Warning"); resp.StatusCode != http.StatusCreated || len(w) != 1 || w[0] != `299 - "line 8: key \"role\" already set in map"` {
		t.Errorf("Warn: %s, warnings %q", resp.Status, w)
	}
	if _, obj := f.managed(agentsPath + "/twice"); spec(obj)["role"] != "worker" {
		t.Errorf("role after the warned apply: %v, want the last value", spec(obj)["role"])
	}
}
