package acm_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rackboot/rackboot/engine"
)

// As upstream's Agent controller: the host's NTP step output (its
// ntp_sources) is the Agent's status.ntpSources.
func TestAgentNTPSources(t *testing.T) {
	s, _ := clusterEnv(t)
	put(t, s, "agent-install.openshift.io", "InfraEnv", "ns", "ie", uid, `{"spec":{"pullSecretRef":{"name":"ps"}}}`)
	waitFor(t, s, "the infra-env", func(m *engine.Model) bool { _, ok := m.InfraEnv(uid); return ok })
	apply(t, s, &engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: uid, Status: "discovering-unbound"}})
	waitFor(t, s, "the Agent", func(m *engine.Model) bool { _, _, ok := agentOf(m); return ok })
	apply(t, s, &engine.UpdateHost{ID: hostID, InfraEnvID: uid, Patch: engine.HostPatch{
		NTPSources: json.RawMessage(`{"ntp_sources":[{"source_name":"ntp.lab","source_state":"synced"},{"source_name":"10.0.0.9","source_state":"unreachable"}]}`)}})
	want := []any{map[string]any{"sourceName": "ntp.lab", "sourceState": "synced"},
		map[string]any{"sourceName": "10.0.0.9", "sourceState": "unreachable"}}
	waitFor(t, s, "the Agent's ntpSources", func(m *engine.Model) bool {
		_, b, ok := agentOf(m)
		st, _ := b["status"].(map[string]any)
		return ok && reflect.DeepEqual(st["ntpSources"], want)
	})
}
