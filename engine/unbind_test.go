package engine_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rackboot/rackboot/engine"
)

// UnbindHost with Reset (a host past its installation) clears what the
// installation left on the host, as upstream's unbind transition does,
// and keeps the role and installation disk (the Agent's spec); without
// it, the host keeps them. A Reset body is version 2, so that an older
// rackboot refuses it rather than apply less of it.
func TestUnbindHostReset(t *testing.T) {
	st := newStore()
	must(t, st, &engine.CreateCluster{Cluster: engine.Cluster{ID: clID, Name: "c1"}})
	must(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "late"}})
	installed := func(id string) engine.Host {
		return engine.Host{ID: id, InfraEnvID: ieID, Status: "installed", Role: "master", InstallationDiskID: "/dev/disk/by-id/wwn-1",
			Bootstrap: true, Day2: true, MachineConfigPool: "infra", Progress: engine.Progress{CurrentStage: "Done", InstallationPercentage: 100},
			StepResults: engine.StepResults{Connectivity: json.RawMessage(`{"remote_hosts":[]}`), DomainResolutions: json.RawMessage(`{"resolutions":[]}`)}}
	}
	for _, id := range []string{h1ID, h2ID} {
		must(t, st, &engine.RegisterHost{Host: installed(id)})
		must(t, st, &engine.BindHost{ID: id, ClusterID: clID})
	}
	must(t, st, &engine.UnbindHost{ID: h1ID, Reset: true})
	must(t, st, &engine.UnbindHost{ID: h2ID})
	st.Read(func(m *engine.Model) {
		h, _ := m.Host(h1ID)
		if h.ClusterID != "" || h.Progress != (engine.Progress{}) || h.Bootstrap || h.Day2 || h.MachineConfigPool != "" ||
			h.Connectivity != nil || h.DomainResolutions != nil {
			t.Errorf("reset host keeps its installation's fields: %+v", h)
		}
		if h.Role != "master" || h.InstallationDiskID != "/dev/disk/by-id/wwn-1" {
			t.Errorf("reset host lost its role or disk: %q %q", h.Role, h.InstallationDiskID)
		}
		h2, _ := m.Host(h2ID)
		want := installed(h2ID)
		if h2.ClusterID != "" || h2.Progress != want.Progress || !h2.Bootstrap || !reflect.DeepEqual(h2.StepResults, want.StepResults) {
			t.Errorf("host unbound without Reset: %+v", h2)
		}
	})
	for reset, version := range map[bool]byte{false: 1, true: 2} {
		b, err := engine.Encode(&engine.UnbindHost{ID: h1ID, Reset: reset})
		if err != nil || b[1] != version {
			t.Errorf("UnbindHost Reset %v: body version %d (%v), want %d", reset, b[1], err, version)
		}
		cmd, err := engine.NewCodec().Decode(b)
		if err != nil || cmd.(*engine.UnbindHost).Reset != reset {
			t.Errorf("UnbindHost Reset %v decoded %+v, %v", reset, cmd, err)
		}
	}
}
