package api

import (
	"strings"
	"testing"

	v35 "github.com/coreos/ignition/v2/config/v3_5"

	"github.com/rackboot/rackboot/boot/nmstate"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

const staticYAML = `interfaces:
  - name: eth0
    type: ethernet
    state: up
    ipv4:
      enabled: true
      dhcp: false
      address:
        - ip: 192.168.111.30
          prefix-length: 24
`

func staticFiles(t *testing.T, e *env, ieID string) []string {
	t.Helper()
	r := e.must(adminCred(), 200, "GET", "/infra-envs/"+ieID+"/downloads/files?file_name=discovery.ign", nil)
	cfg, _, err := v35.Parse(r.body)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range cfg.Storage.Files {
		if strings.HasPrefix(f.Path, nmstate.NetworkDir) {
			out = append(out, f.Path)
		}
	}
	return out
}

// static_network_config becomes NMState configs the infra-env selects and
// keyfiles in its discovery Ignition; invalid YAML is refused.
func TestStaticNetwork(t *testing.T) {
	e := newMemEnv(t)
	cfg := []map[string]any{{"network_yaml": staticYAML,
		"mac_interface_map": []map[string]string{{"mac_address": "52:54:00:12:34:01", "logical_nic_name": "eth0"}}}}
	var ie models.InfraEnv
	e.must(adminCred(), 201, "POST", "/infra-envs", map[string]any{"name": "static", "pull_secret": testPullSecret,
		"static_network_config": cfg}).decode(t, &ie)
	files := staticFiles(t, e, ie.ID)
	if !strings.Contains(strings.Join(files, " "), "host0/eth0.nmconnection") {
		t.Errorf("static network files %v", files)
	}
	bad := []map[string]any{{"network_yaml": "interfaces: [", "mac_interface_map": []map[string]string{}}}
	e.wantError(e.do(adminCred(), "PATCH", "/infra-envs/"+ie.ID, map[string]any{"static_network_config": bad}), 400, "static_network_config")
	if got := staticFiles(t, e, ie.ID); len(got) != len(files) {
		t.Errorf("a refused update changed the files: %v", got)
	}
	e.must(adminCred(), 201, "PATCH", "/infra-envs/"+ie.ID, map[string]any{"static_network_config": []any{}})
	if got := staticFiles(t, e, ie.ID); len(got) != 0 {
		t.Errorf("files left after removing the config: %v", got)
	}
	e.must(adminCred(), 201, "PATCH", "/infra-envs/"+ie.ID, map[string]any{"static_network_config": cfg})
	e.must(adminCred(), 204, "DELETE", "/infra-envs/"+ie.ID, nil)
	e.store.Read(func(m *engine.Model) {
		for c := range m.NMStateConfigs() {
			t.Errorf("config %s left after deleting the infra-env", c.Name)
		}
	})
}
