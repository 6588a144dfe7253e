package engine_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rackboot/rackboot/engine"
)

// Step results are patched one by one, survive a snapshot round trip and
// are cleared when the agent registers again.
func TestHostStepResults(t *testing.T) {
	st := newStore()
	must(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "rack1"}})
	must(t, st, &engine.RegisterHost{Host: engine.Host{ID: h1ID, InfraEnvID: ieID, Status: "discovering-unbound"}})
	ntp := json.RawMessage(`{"ntp_sources":[{"source_name":"10.0.0.1","source_state":"synced"}]}`)
	dns := json.RawMessage(`{"resolutions":[{"domain_name":"quay.io","ipv4_addresses":["10.0.0.9"]}]}`)
	ts := int64(1795000000)
	must(t, st, &engine.UpdateHost{ID: h1ID, InfraEnvID: ieID, Patch: engine.HostPatch{NTPSources: ntp, HostTime: &ts}})
	must(t, st, &engine.UpdateHost{ID: h1ID, Patch: engine.HostPatch{DomainResolutions: dns}})
	conn := json.RawMessage(`{"remote_hosts":[]}`)
	must(t, st, &engine.UpdateHost{ID: h1ID, Patch: engine.HostPatch{Connectivity: conn}})

	var snap bytes.Buffer
	st.Read(func(m *engine.Model) {
		h, _ := m.Host(h1ID)
		want := engine.StepResults{NTPSources: ntp, DomainResolutions: dns, Connectivity: conn, HostTime: ts}
		if !equalSteps(h.StepResults, want) {
			t.Errorf("step results = %+v, want %+v", h.StepResults, want)
		}
		if _, err := m.WriteTo(&snap); err != nil {
			t.Fatal(err)
		}
	})
	m, err := engine.ReadModel(&snap)
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := m.Host(h1ID); string(h.Connectivity) != string(conn) || h.HostTime != ts {
		t.Errorf("after snapshot: %+v", h.StepResults)
	}

	must(t, st, &engine.RegisterHost{Host: engine.Host{ID: h1ID, InfraEnvID: ieID, Status: "discovering-unbound"}})
	st.Read(func(m *engine.Model) {
		if h, _ := m.Host(h1ID); !equalSteps(h.StepResults, engine.StepResults{}) {
			t.Errorf("after registering again: %+v", h.StepResults)
		}
	})
}

func equalSteps(a, b engine.StepResults) bool {
	return string(a.NTPSources) == string(b.NTPSources) && string(a.DomainResolutions) == string(b.DomainResolutions) &&
		string(a.Connectivity) == string(b.Connectivity) && a.HostTime == b.HostTime
}
