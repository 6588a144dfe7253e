package kubeapi

import (
	"encoding/json"
	"github.com/rackboot/rackboot/engine/kubekinds"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
)

// A JSON list's items are encoded from the stored bodies without
// decoding their spec and status (1.50 stays as stored; a decode into
// maps writes 1.5), and say what the whole rendered objects say.
func TestListItemsKeepBodyUndecoded(t *testing.T) {
	agent := &Resource{Resource: kubekinds.Resource{Group: groupAgent, Version: "v1beta1", Kind: "Agent"}}
	h := &Handler{}
	var objs []engine.Object
	for _, n := range []string{"a1", "a2"} {
		o := engine.Object{ObjectRef: engine.ObjectRef{Group: groupAgent, Kind: "Agent", Namespace: "ns", Name: n}, UID: "u-" + n,
			Body: json.RawMessage(`{"metadata":{"labels":{"l":"1"}},"spec":{"approved":true,"n":1.50},"status":{"inventory":{"hostname":"x"}}}`)}
		o.Revision = 3
		objs = append(objs, o)
	}
	w := httptest.NewRecorder()
	if err := h.writeList(w, agent, listed{objs: objs, index: 7}); err != nil {
		t.Fatal(err)
	}
	body := w.Body.String()
	if strings.Count(body, `"n":1.50`) != 2 {
		t.Errorf("spec decoded and encoded again: %s", body)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var items []any
	for _, o := range objs {
		v, err := h.render(agent, o)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		var x any
		_ = json.Unmarshal(b, &x)
		items = append(items, x)
	}
	want := map[string]any{"apiVersion": "agent-install.openshift.io/v1beta1", "kind": "AgentList",
		"metadata": map[string]any{"resourceVersion": "7"}, "items": items}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("list %v, want %v", got, want)
	}
}
