package kubeapi_test

import (
	"strconv"
	"strings"
	"testing"
)

// rv is an object's metadata.resourceVersion as a number.
func rv(t *testing.T, obj map[string]any) uint64 {
	t.Helper()
	md, _ := obj["metadata"].(map[string]any)
	s, _ := md["resourceVersion"].(string)
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q of %v", s, obj)
	}
	return n
}

// sendInitialEvents=true streams the current objects as ADDED, then a
// BOOKMARK annotated k8s.io/initial-events-end at their state, then the
// changes; sendInitialEvents=false from resourceVersion "" sends only the
// changes.
func TestWatchSendInitialEvents(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	f.createAgent("a1")
	w := f.watch("allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan")
	typ, name, a1 := w.next()
	if typ != "ADDED" || name != "a1" {
		t.Fatalf("first event %s %s, want ADDED a1", typ, name)
	}
	typ, _, b := w.next()
	md, _ := b["metadata"].(map[string]any)
	if typ != "BOOKMARK" || b["kind"] != "Agent" || md["annotations"].(map[string]any)["k8s.io/initial-events-end"] != "true" || rv(t, b) < rv(t, a1) {
		t.Fatalf("second event %s %v, want the initial-events-end BOOKMARK", typ, b)
	}
	plain := f.watch("allowWatchBookmarks=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan")
	f.createAgent("a2")
	for _, s := range []*watchStream{w, plain} {
		if typ, name, a2 := s.next(); typ != "ADDED" || name != "a2" || rv(t, a2) <= rv(t, b) {
			t.Errorf("after the initial events: %s %s %v, want ADDED a2", typ, name, a2)
		}
	}
}

// A watch that allows bookmarks gets one as it ends at its
// timeoutSeconds, at the newest state it has sent.
func TestWatchBookmarkAtTimeout(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	f.createAgent("a1")
	_, _, a1 := f.watch("").next()
	w := f.watch("allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=" + strconv.FormatUint(rv(t, a1), 10))
	typ, _, b := w.next()
	if typ != "BOOKMARK" || rv(t, b) != rv(t, a1) || b["apiVersion"] != "agent-install.openshift.io/v1beta1" {
		t.Errorf("the event at the timeout: %s %v, want a BOOKMARK at %d", typ, b, rv(t, a1))
	}
	if _, ok := <-w.events; ok {
		t.Error("the watch went on after its timeout")
	}
}

// The options are checked as kube-apiserver checks a watch's ListOptions.
func TestWatchListOptionsRefused(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	for q, want := range map[string]string{
		"sendInitialEvents=true&allowWatchBookmarks=true":          `ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`,
		"sendInitialEvents=true&resourceVersionMatch=NotOlderThan": `allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true`,
		"resourceVersionMatch=NotOlderThan":                        `resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided`,
	} {
		code, body := f.do("GET", agentsPath+"?watch=true&"+q, "", "")
		if code != 422 || !strings.Contains(body, want) {
			t.Errorf("%s: %d %s, want 422 with %s", q, code, body, want)
		}
	}
}
