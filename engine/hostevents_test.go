package engine_test

import (
	"testing"

	"github.com/rackboot/rackboot/engine"
)

// A host command that carries an event appends it in the same log entry,
// with the stored host's ids; a command that fails appends nothing and
// stores nothing, its validations included.
func TestHostCommandsCarryTheirEvent(t *testing.T) {
	st := newStore()
	must(t, st, &engine.CreateCluster{Cluster: engine.Cluster{ID: clID, Name: "c1", ControlPlaneCount: 1}})
	must(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "bound", ClusterID: clID}})
	must(t, st, &engine.RegisterHost{Host: engine.Host{ID: h1ID, InfraEnvID: ieID, Status: "discovering"},
		Event: &engine.Event{Name: "host_registration_succeeded", Severity: "info", Message: "registered"}})
	must(t, st, &engine.UpdateHost{ID: h1ID, Patch: engine.HostPatch{Inventory: []byte(`{}`)},
		Event: &engine.Event{Name: "host_inventory_received", Severity: "info", Message: "inventory"}})
	vals := []engine.Validation{{ID: "has-inventory", Category: "hardware", Status: "success", Message: "ok"}}
	expectErr(t, st, &engine.SetHostStatus{ID: h1ID, Status: "known", From: []string{"insufficient"}, Validations: &vals,
		Event: &engine.Event{Name: "host_status_updated", Message: "never"}}, engine.ErrConflict)
	must(t, st, &engine.SetHostStatus{ID: h1ID, Status: "known", StatusInfo: "ready", From: []string{"discovering"}, Validations: &vals,
		Event: &engine.Event{Name: "host_status_updated", Severity: "info", Message: "known"}})

	st.Read(func(m *engine.Model) {
		h, _ := m.Host(h1ID)
		if h.Status != "known" || len(h.Validations) != 1 || h.Validations[0].ID != "has-inventory" {
			t.Errorf("host %s with validations %+v", h.Status, h.Validations)
		}
		var got []string
		for e := range m.Events(0) {
			if e.HostID != h1ID || e.InfraEnvID != ieID || e.ClusterID != clID {
				t.Errorf("event %s carries ids %s/%s/%s", e.Name, e.ClusterID, e.InfraEnvID, e.HostID)
			}
			got = append(got, e.Name+":"+e.Message)
		}
		want := []string{"host_registration_succeeded:registered", "host_inventory_received:inventory", "host_status_updated:known"}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("events %q, want %q", got, want)
		}
	})
	// Six commands, the refused one not appended (it is checked first),
	// three events: each event is in its command's entry.
	if n := st.Entries(); n != 5 {
		t.Errorf("%d log entries, want 5", n)
	}
}
