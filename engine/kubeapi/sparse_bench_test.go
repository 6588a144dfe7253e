package kubeapi

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
)

// BenchmarkTableViews renders the Table rows of a 500-Agent page (kubectl
// get's chunk), each Agent with a ≈ 6 KB inventory as bench/agents makes.
func BenchmarkTableViews(b *testing.B) {
	var agent *Resource
	for _, r := range resources() {
		if r.Group == groupAgent && r.Kind == "Agent" {
			agent = r
		}
	}
	h := &Handler{opts: Options{Now: time.Now}}
	var disks []string
	for i := range 24 {
		disks = append(disks, fmt.Sprintf(`{"id":"/dev/disk/by-path/pci-0000:00:%02d.0","name":"vd%c","sizeBytes":107374182400,"driveType":"HDD","model":"QEMU HARDDISK","serial":"s%04d","installationEligibility":{"eligible":true}}`, i, 'a'+i, i))
	}
	body := `{"metadata":{"labels":{"infraenvs.agent-install.openshift.io":"bench"},"annotations":{"rackboot.io/synced-spec":"{\"approved\":false}"},"finalizers":["f"]},
		"spec":{"approved":false,"role":"auto-assign"},
		"status":{"role":"auto-assign","progress":{"currentStage":""},"conditions":[{"type":"SpecSynced","status":"True"}],
		"inventory":{"hostname":"rack000-node000","disks":[` + strings.Join(disks, ",") + `]}}}`
	objs := make([]engine.Object, 500)
	for i := range objs {
		objs[i] = engine.Object{ObjectRef: engine.ObjectRef{Group: groupAgent, Kind: "Agent", Namespace: "bench", Name: fmt.Sprintf("a%d", i)},
			UID: "u", Body: json.RawMessage(body), Generation: 1}
	}
	r := httptest.NewRequest("GET", "/apis/agent-install.openshift.io/v1beta1/agents", nil)
	r.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	b.SetBytes(int64(len(body) * len(objs)))
	b.ResetTimer()
	for range b.N {
		if _, err := h.tableViews(agent, r, objs); err != nil {
			b.Fatal(err)
		}
	}
}
