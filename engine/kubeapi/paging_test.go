package kubeapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

type listPage struct {
	Metadata struct {
		ResourceVersion    string `json:"resourceVersion"`
		Continue           string `json:"continue"`
		RemainingItemCount *int64 `json:"remainingItemCount"`
	} `json:"metadata"`
	Items []struct {
		Metadata struct{ Name string } `json:"metadata"`
	} `json:"items"`
	Reason string `json:"reason"`
}

func (f *fixture) page(query string) (int, listPage) {
	f.t.Helper()
	code, body := f.do("GET", agentsPath+"?"+query, "", "")
	var p listPage
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		f.t.Fatalf("list: %v: %s", err, body)
	}
	return code, p
}

// cacheLoaded returns once the watch cache has loaded (a watch's stream
// starts then): a continue token older than its load is Gone.
func (f *fixture) cacheLoaded() {
	f.t.Helper()
	f.watch("")
}

func (p listPage) names() string {
	var n []string
	for _, i := range p.Items {
		n = append(n, i.Metadata.Name)
	}
	return strings.Join(n, ",")
}

// limit pages the list in name order with remainingItemCount; the pages
// after the first show the objects as they were at the first page's
// resourceVersion, whatever changed since.
func TestListPaging(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	f.cacheLoaded()
	for _, n := range []string{"a1", "a2", "a3", "a4", "a5"} {
		f.createAgent(n)
	}
	code, p := f.page("limit=2")
	if code != 200 || p.names() != "a1,a2" || p.Metadata.Continue == "" || p.Metadata.RemainingItemCount == nil || *p.Metadata.RemainingItemCount != 3 {
		t.Fatalf("first page: %d %+v", code, p)
	}
	rv := p.Metadata.ResourceVersion
	f.createAgent("a0")
	f.createAgent("a6")
	if c, b := f.do("DELETE", agentsPath+"/a3", "", ""); c != 200 {
		t.Fatalf("delete: %d %s", c, b)
	}
	if c, b := f.do("PATCH", agentsPath+"/a4", "application/merge-patch+json", `{"spec":{"approved":true}}`); c != 200 {
		t.Fatalf("patch: %d %s", c, b)
	}
	code, p = f.page("limit=2&continue=" + url.QueryEscape(p.Metadata.Continue))
	if code != 200 || p.names() != "a3,a4" || p.Metadata.ResourceVersion != rv || *p.Metadata.RemainingItemCount != 1 {
		t.Fatalf("second page: %d %+v, want a3,a4 at %s", code, p, rv)
	}
	code, p = f.page("limit=2&continue=" + url.QueryEscape(p.Metadata.Continue))
	if code != 200 || p.names() != "a5" || p.Metadata.Continue != "" || p.Metadata.RemainingItemCount != nil {
		t.Fatalf("last page: %d %+v", code, p)
	}
	if code, p = f.page("limit=10&labelSelector=x%21%3Dy"); code != 200 || p.names() != "a0,a1,a2,a4,a5,a6" || p.Metadata.Continue != "" {
		t.Errorf("one page with a selector: %d %+v", code, p)
	}
	if code, _ := f.page("limit=2&continue=bogus"); code != http.StatusBadRequest {
		t.Errorf("bad token: %d", code)
	}
}

// A continue token older than the watch cache's window is 410 Expired,
// with a token that continues at the current state.
func TestListContinueExpired(t *testing.T) {
	f := newFixture(t, 2)
	f.setup()
	f.cacheLoaded()
	for _, n := range []string{"a1", "a2", "a3"} {
		f.createAgent(n)
	}
	_, p := f.page("limit=1")
	for _, n := range []string{"b1", "b2", "b3", "b4", "b5", "b6"} {
		f.createAgent(n)
	}
	// A list from the current state waits until the cache has followed
	// every change: the window has then moved past the token's version
	// (a continue request waits only for its own version).
	f.page("limit=1")
	code, gone := f.page("limit=1&continue=" + url.QueryEscape(p.Metadata.Continue))
	if code != http.StatusGone || gone.Reason != "Expired" || gone.Metadata.Continue == "" {
		t.Fatalf("expired token: %d %+v", code, gone)
	}
	code, p = f.page("limit=10&continue=" + url.QueryEscape(gone.Metadata.Continue))
	if code != 200 || p.names() != "a2,a3,b1,b2,b3,b4,b5,b6" {
		t.Errorf("inconsistent continue: %d %+v", code, p)
	}
}
