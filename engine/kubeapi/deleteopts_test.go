package kubeapi_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// Delete options kube-apiserver refuses are refused with its 422 and its
// words (an unknown propagationPolicy, orphanDependents with
// propagationPolicy, in the body or in the query), and nothing is
// written; propagationPolicy Orphan and Foreground only mark the object,
// with the garbage collector's finalizer (engine/kubegc removes it).
func TestDeleteOptions(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	f.createAgent("a1")
	before := f.index()
	const invalid = `DeleteOptions.meta.k8s.io \"\" is invalid: `
	for name, tc := range map[string]struct{ path, body, msg string }{
		"unknown policy": {agentsPath + "/a1", `{"propagationPolicy":"Sideways"}`,
			invalid + `propagationPolicy: Unsupported value: \"Sideways\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"`},
		"both set": {agentsPath + "/a1", `{"propagationPolicy":"Orphan","orphanDependents":false}`,
			invalid + `propagationPolicy: Invalid value: \"Orphan\": orphanDependents and deletionPropagation cannot be both set`},
		"unknown policy in the query": {agentsPath + "/a1?propagationPolicy=sideways", "",
			invalid + `propagationPolicy: Unsupported value: \"sideways\"`},
	} {
		code, body := f.do("DELETE", tc.path, "application/json", tc.body)
		if code != 422 || !strings.Contains(body, `"reason":"Invalid"`) || !strings.Contains(body, tc.msg) {
			t.Errorf("%s: %d %s, want 422 %s", name, code, body, tc.msg)
		}
	}
	if after := f.index(); after != before {
		t.Errorf("refused deletes moved the log from %d to %d", before, after)
	}

	for policy, want := range map[string]string{"Orphan": "orphan", "Foreground": "foregroundDeletion"} {
		name := "of-" + strings.ToLower(policy)
		f.createAgent(name)
		if code, body := f.do("DELETE", agentsPath+"/"+name, "application/json", `{"propagationPolicy":"`+policy+`"}`); code != 200 {
			t.Fatalf("delete %s: %d %s", policy, code, body)
		}
		_, body := f.do("GET", agentsPath+"/"+name, "", "")
		var obj struct {
			Metadata struct {
				Finalizers        []string `json:"finalizers"`
				DeletionTimestamp string   `json:"deletionTimestamp"`
			} `json:"metadata"`
		}
		_ = json.Unmarshal([]byte(body), &obj)
		if len(obj.Metadata.Finalizers) != 1 || obj.Metadata.Finalizers[0] != want || obj.Metadata.DeletionTimestamp == "" {
			t.Errorf("deleted with %s: %s, want the %s finalizer and a deletionTimestamp", policy, body, want)
		}
	}
	// The deprecated orphanDependents: true is Orphan; false leaves the
	// object's own finalizer to hold it and is answered 202 Accepted, as
	// kube-apiserver answers it.
	f.createAgent("od")
	if code, body := f.do("DELETE", agentsPath+"/od?orphanDependents=true", "", ""); code != 200 || !strings.Contains(body, `"finalizers":["orphan"]`) {
		t.Errorf("orphanDependents=true: %d %s, want 200 with the orphan finalizer", code, body)
	}
	held := `{"metadata":{"name":"held","finalizers":["example.com/hold","foregroundDeletion"]},"spec":{"approved":false,"role":""}}`
	if code, body := f.do("POST", agentsPath, "application/json", held); code != 201 {
		t.Fatalf("create held: %d %s", code, body)
	}
	if code, body := f.do("DELETE", agentsPath+"/held", "application/json", `{"orphanDependents":false}`); code != 202 ||
		!strings.Contains(body, `"finalizers":["example.com/hold"]`) || !strings.Contains(body, `"deletionTimestamp"`) {
		t.Errorf("orphanDependents=false of an object with a finalizer: %d %s, want 202, only its own finalizer left", code, body)
	}
	// Background (kubectl's default) takes the finalizer off again: the
	// object goes at once, as kube-apiserver's store does.
	if code, body := f.do("DELETE", agentsPath+"/of-orphan", "application/json", `{"propagationPolicy":"Background"}`); code != 200 {
		t.Fatalf("delete Background: %d %s", code, body)
	}
	if code, body := f.do("GET", agentsPath+"/of-orphan", "", ""); code != 404 {
		t.Errorf("after a Background delete: %d %s, want 404", code, body)
	}
}
