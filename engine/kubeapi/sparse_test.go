package kubeapi

import (
	"bytes"
	"encoding/json"
	"github.com/rackboot/rackboot/engine/kubekinds"
	"net/http/httptest"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
)

// A Table row of an Agent is rendered from its metadata and the printer
// columns' paths only: the rows (cells and PartialObjectMetadata) are the
// ones the whole object gives, while the inventory's other fields, most
// of an Agent, are not decoded.
func TestTableRowsDecodeOnlyColumns(t *testing.T) {
	var agent *Resource
	for _, r := range resources() {
		if r.Group == groupAgent && r.Kind == "Agent" {
			agent = r
		}
	}
	now := time.Date(2026, 11, 27, 5, 0, 0, 0, time.UTC)
	h := &Handler{opts: Options{Now: func() time.Time { return now }}}
	body := `{"metadata":{"labels":{"infraenvs.agent-install.openshift.io":"ie"},"annotations":{"a":"b"},"finalizers":["f"]},
		"spec":{"approved":true,"clusterDeploymentName":{"name":"c1","namespace":"ns"},"hostname":"h-1"},
		"status":{"role":"master","progress":{"currentStage":"Done","installationPercentage":100},
		"conditions":[{"type":"Bound","status":"True"}],
		"inventory":{"hostname":"node-1","disks":[{"id":"/dev/sda","sizeBytes":1000}],"interfaces":[{"name":"eth0"}]}}}`
	o := engine.Object{ObjectRef: engine.ObjectRef{Group: groupAgent, Kind: "Agent", Namespace: "ns", Name: "a1"},
		UID: "u1", Body: json.RawMessage(body), Generation: 2}
	o.Revision, o.CreatedAt = 9, now.Add(-time.Hour)
	objs := []engine.Object{o}

	for _, q := range []string{"", "?includeObject=None", "?includeObject=Object"} {
		r := httptest.NewRequest("GET", "/apis/agent-install.openshift.io/v1beta1/agents"+q, nil)
		r.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
		sparse, err := h.tableViews(agent, r, objs)
		if err != nil {
			t.Fatal(err)
		}
		whole, _ := h.renderAll(agent, objs)
		got, want := h.table(agent, r, objs, sparse, 9), h.table(agent, r, objs, whole, 9)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Table %v, want %v", q, got, want)
		}
		inv, _ := sparse[0]["status"].(map[string]any)["inventory"].(map[string]any)
		if _, decoded := inv["disks"]; decoded != strings.Contains(q, "=Object") {
			t.Errorf("%s: inventory decoded as %v", q, inv)
		}
	}
	cells := h.table(agent, httptest.NewRequest("GET", "/", nil), objs, []map[string]any{mustSparse(t, h, agent, o)}, 9)["rows"].([]any)[0].(map[string]any)["cells"]
	if want := []any{"a1", "c1", true, "master", "Done", "node-1", "h-1"}; !reflect.DeepEqual(cells, want) {
		t.Errorf("cells %v, want %v", cells, want)
	}
}

func mustSparse(t *testing.T, h *Handler, res *Resource, o engine.Object) map[string]any {
	t.Helper()
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	v, err := h.tableViews(res, r, []engine.Object{o})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

// A JSON watch event's line is encoded from the object's body without
// decoding its spec and status (only metadata is rebuilt), and says what
// the whole rendered object says.
func TestWatchLineKeepsBodyUndecoded(t *testing.T) {
	agent := &Resource{Resource: kubekinds.Resource{Group: groupAgent, Version: "v1beta1", Kind: "Agent"}}
	h := &Handler{}
	o := engine.Object{ObjectRef: engine.ObjectRef{Group: groupAgent, Kind: "Agent", Namespace: "ns", Name: "a1"}, UID: "u1",
		Body: json.RawMessage(`{"metadata":{"labels":{"l":"1"}},"spec":{"approved":true,"n":1.50},"status":{"inventory":{"hostname":"x","cpu":{"count":4}}}}`)}
	o.Revision = 3
	raw, err := h.renderRaw(agent, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["status"].(json.RawMessage); !ok {
		t.Errorf("status decoded: %T", raw["status"])
	}
	whole, _ := h.render(agent, o)
	a, _ := eventLine(modified, raw)
	b, _ := eventLine(modified, whole)
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(b, &y)
	if !reflect.DeepEqual(x, y) {
		t.Errorf("line %s, want %s", a, b)
	}
}

// A Table row's sparse decode does not copy the parts of the body it
// skips: decoding the columns of an object with a 1 MiB status blob
// allocates far less than the blob (it copied it about three times).
func TestSparseDecodeDoesNotCopyBody(t *testing.T) {
	blob := strings.Repeat("x", 1<<20)
	body := []byte(`{"metadata":{"name":"a1"},"status":{"role":"master","inventory":{"blob":"` + blob + `"}}}`)
	tree := pathTree([]string{"metadata", ".status.role"})
	var v any
	stored := slices.Clone(body)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v, err := decodeSparse(body, tree)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, stored) {
		t.Error("the decode changed the stored body")
	}
	want := map[string]any{"metadata": map[string]any{"name": "a1"}, "status": map[string]any{"role": "master"}}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("decoded %v", v)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 256<<10 {
		t.Errorf("decoding two small fields allocated %d bytes", n)
	}
}
