package kubeapi_test

import (
	"context"
	"encoding/json"
	"net/url"
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
