package kubeapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// listAt lists the Agents with query and returns the names and the
// list's resourceVersion.
func (f *fixture) listAt(query string) (names []string, rv string) {
	f.t.Helper()
	code, body := f.do("GET", agentsPath+"?"+query, "", "")
	if code != http.StatusOK {
		f.t.Fatalf("list ?%s: %d %s", query, code, body)
	}
	var l struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
		Items    []struct {
			Metadata struct{ Name string } `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(body), &l); err != nil {
		f.t.Fatal(err)
	}
	for _, it := range l.Items {
		names = append(names, it.Metadata.Name)
	}
	return names, l.Metadata.ResourceVersion
}

// resourceVersionMatch on a plain list, as kube-apiserver serves it:
// Exact is the list as it was at that resourceVersion (with it as the
// list's), NotOlderThan the newest; one the store has not reached is
// 504 Too large resource version; one that left the watch cache's window
// 410 Gone; the options are checked as ValidateListOptions checks them.
func TestListResourceVersionMatch(t *testing.T) {
	f := newFixture(t, 3)
	f.setup()
	f.createAgent("a1")
	_, rv1 := f.listAt("")
	f.createAgent("a2")
	if names, rv := f.listAt("resourceVersion=" + rv1 + "&resourceVersionMatch=Exact"); strings.Join(names, ",") != "a1" || rv != rv1 {
		t.Errorf("Exact at %s: %v at %s, want [a1] at %s", rv1, names, rv, rv1)
	}
	if names, rv := f.listAt("resourceVersion=" + rv1 + "&resourceVersionMatch=NotOlderThan"); strings.Join(names, ",") != "a1,a2" || rv == rv1 {
		t.Errorf("NotOlderThan %s: %v at %s, want [a1 a2] at a newer one", rv1, names, rv)
	}
	if names, _ := f.listAt("resourceVersion=" + rv1 + "&resourceVersionMatch=Exact&limit=1"); strings.Join(names, ",") != "a1" {
		t.Errorf("Exact at %s, one per page: %v", rv1, names)
	}

	future := f.index() + 1000
	for _, match := range []string{"Exact", "NotOlderThan", ""} {
		code, body := f.do("GET", fmt.Sprintf("%s?resourceVersion=%d&resourceVersionMatch=%s", agentsPath, future, match), "", "")
		want := fmt.Sprintf(`"message":"Timeout: Too large resource version: %d, current: %d","reason":"Timeout"`, future, f.index())
		if code != http.StatusGatewayTimeout || !strings.Contains(body, want) || !strings.Contains(body, `"reason":"ResourceVersionTooLarge"`) {
			t.Errorf("%q at a future resourceVersion: %d %s, want 504 with %s", match, code, body, want)
		}
	}

	for _, n := range []string{"b1", "b2", "b3", "b4", "b5", "b6", "b7"} {
		f.createAgent(n)
	}
	code, body := f.do("GET", agentsPath+"?resourceVersion="+rv1+"&resourceVersionMatch=Exact", "", "")
	if code != http.StatusGone || !strings.Contains(body, `"message":"The resourceVersion for the provided list is too old.","reason":"Expired"`) {
		t.Errorf("Exact at a resourceVersion out of the window: %d %s", code, body)
	}

	for query, want := range map[string]string{
		"resourceVersionMatch=Exact":                    `ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`,
		"resourceVersion=0&resourceVersionMatch=Exact":  `ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"`,
		"resourceVersion=1&resourceVersionMatch=Latest": `ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported value: \"Latest\": supported values: \"Exact\", \"NotOlderThan\", \"\"`,
		"resourceVersionMatch=Exact&continue=x":         `[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided]`,
		"sendInitialEvents=true":                        `sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list`,
	} {
		code, body := f.do("GET", agentsPath+"?"+query, "", "")
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, want) || !strings.Contains(body, `"reason":"Invalid"`) {
			t.Errorf("?%s: %d %s, want 422 with %s", query, code, body, want)
		}
	}
}
