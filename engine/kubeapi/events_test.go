package kubeapi_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
)

const eventsPath = "/api/v1/namespaces/ns/events"

// createInfraEnv creates InfraEnv name and returns its uid (the domain
// infra-env's id its events name).
func (f *fixture) createInfraEnv(name string) string {
	f.t.Helper()
	code, body := f.do("POST", "/apis/agent-install.openshift.io/v1beta1/namespaces/ns/infraenvs", "application/json",
		`{"metadata":{"name":"`+name+`"}}`)
	if code != 201 {
		f.t.Fatalf("create infraenv: %d %s", code, body)
	}
	var o struct {
		Metadata struct{ UID string } `json:"metadata"`
	}
	_ = json.Unmarshal([]byte(body), &o)
	return o.Metadata.UID
}

func (f *fixture) domainEvent(infraEnvID, msg string) {
	f.t.Helper()
	if _, err := f.store.Apply(context.Background(), &engine.AppendEvent{Event: engine.Event{
		Name: "image_info_updated", Severity: "info", Message: msg, InfraEnvID: infraEnvID}}); err != nil {
		f.t.Fatal(err)
	}
}

// Events are watched: the current ones ADDED first, then each new one;
// the involvedObject field selector picks one object's; a watch from a
// list's resourceVersion sees only the later ones.
func TestWatchEvents(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	ie1, ie2 := f.createInfraEnv("ie1"), f.createInfraEnv("ie2")
	f.domainEvent(ie1, "first")
	all := f.watchAt(eventsPath, "")
	if typ, _, obj := all.next(); typ != "ADDED" || obj["message"] != "first" {
		t.Fatalf("initial: %s %v", typ, obj)
	}
	one := f.watchAt(eventsPath, "fieldSelector="+url.QueryEscape("involvedObject.name=ie2,involvedObject.kind=InfraEnv"))
	code, body := f.do("GET", eventsPath, "", "")
	var list struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil {
		t.Fatalf("list: %d %s", code, body)
	}
	f.domainEvent(ie1, "second")
	f.domainEvent(ie2, "third")
	resumed := f.watchAt(eventsPath, "resourceVersion="+list.Metadata.ResourceVersion)
	for _, want := range []string{"second", "third"} {
		if typ, _, obj := all.next(); typ != "ADDED" || obj["message"] != want {
			t.Errorf("watch: %s %v, want %s ADDED", typ, obj["message"], want)
		}
		if typ, _, obj := resumed.next(); typ != "ADDED" || obj["message"] != want {
			t.Errorf("resumed watch: %s %v, want %s ADDED", typ, obj["message"], want)
		}
	}
	typ, _, obj := one.next()
	io, _ := obj["involvedObject"].(map[string]any)
	if typ != "ADDED" || obj["message"] != "third" || io["name"] != "ie2" {
		t.Errorf("selected watch: %s %v", typ, obj)
	}
}

// A domain event about an object that does not exist yet is sent when
// the object appears (a host registers before its Agent is made).
func TestWatchEventOfALaterObject(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	w := f.watchAt(eventsPath, "")
	f.domainEvent("late-uid", "before its object")
	if _, err := f.store.Apply(context.Background(), &engine.PutObject{Create: true, Object: engine.Object{
		ObjectRef: engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: "ns", Name: "late"},
		UID:       "late-uid", Body: json.RawMessage(`{"metadata":{"name":"late"}}`)}}); err != nil {
		t.Fatal(err)
	}
	typ, _, obj := w.next()
	io, _ := obj["involvedObject"].(map[string]any)
	if typ != "ADDED" || obj["message"] != "before its object" || io["name"] != "late" {
		t.Errorf("watch: %s %v", typ, obj)
	}
}

// An Event watch takes bookmarks and sendInitialEvents as the other
// kinds' do, at Event sequence numbers: sendInitialEvents=true sends the
// kept Events then the initial-events-end BOOKMARK, then the new ones;
// =false from "" only the new ones; a watch that allows bookmarks gets
// one as it ends at its timeoutSeconds, at the newest Event it looked at.
func TestWatchEventsBookmarks(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	ie := f.createInfraEnv("ie")
	f.domainEvent(ie, "first")
	initial := f.watchAt(eventsPath, "allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan")
	typ, _, first := initial.next()
	if typ != "ADDED" || first["message"] != "first" {
		t.Fatalf("initial event: %s %v", typ, first)
	}
	typ, _, b := initial.next()
	md, _ := b["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	if typ != "BOOKMARK" || b["kind"] != "Event" || b["apiVersion"] != "v1" || ann["k8s.io/initial-events-end"] != "true" || rv(t, b) != rv(t, first) {
		t.Fatalf("after the initial events: %s %v, want the initial-events-end BOOKMARK at %d", typ, b, rv(t, first))
	}
	none := f.watchAt(eventsPath, "allowWatchBookmarks=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan")
	f.domainEvent(ie, "second")
	// Watched after it, from the first: the watch sends what it finds
	// before its timer can end it.
	ends := f.watchAt(eventsPath, "allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion="+strconv.FormatUint(rv(t, first), 10))
	var second map[string]any
	for _, w := range []*watchStream{initial, none, ends} {
		if typ, _, second = w.next(); typ != "ADDED" || second["message"] != "second" {
			t.Errorf("the new Event: %s %v, want second ADDED", typ, second)
		}
	}
	if typ, _, b := ends.next(); typ != "BOOKMARK" || rv(t, b) != rv(t, second) {
		t.Errorf("as the watch ends: %s %v, want a BOOKMARK at %d", typ, b, rv(t, second))
	}
	if _, ok := <-ends.events; ok {
		t.Error("the watch went on after its timeout")
	}
	code, body := f.do("GET", eventsPath+"?watch=true&sendInitialEvents=true&allowWatchBookmarks=true", "", "")
	if code != 422 || !strings.Contains(body, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan") {
		t.Errorf("sendInitialEvents without resourceVersionMatch: %d %s", code, body)
	}
}
