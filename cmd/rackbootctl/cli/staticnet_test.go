package cli_test

import (
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
	"github.com/rackboot/rackboot/cmd/rackbootctl/internal/testserver"
)

const staticNetwork = `- mac_interface_map:
    - logical_nic_name: eth0
      mac_address: "52:54:00:12:34:01"
  network_yaml: |
    interfaces:
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

// staticFiles lists the static network files of the infra-env's
// discovery Ignition.
func staticFiles(t *testing.T, r *rig, ie string) []string {
	t.Helper()
	ign := r.ok("download", "discovery-ignition", "--infra-env", ie)
	if _, err := testserver.AgentConfig([]byte(ign)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range strings.Split(ign, `"path":"`)[1:] {
		if p, _, _ := strings.Cut(f, `"`); strings.Contains(p, ".nmconnection") {
			out = append(out, p)
		}
	}
	return out
}

func TestStaticNetworkConfig(t *testing.T) {
	r := newRig(t)
	ie := createdID(t, r.ok("create", "infra-env", "--name", "static", "--pull-secret-file", "-",
		"--static-network-config", r.file("static.yaml", staticNetwork)))
	if got := staticFiles(t, r, ie); len(got) != 1 || !strings.HasSuffix(got[0], "host0/eth0.nmconnection") {
		t.Errorf("static files after create: %v", got)
	}
	r.ok("patch", "infra-env", ie, "--clear-static-network")
	if got := staticFiles(t, r, ie); len(got) != 0 {
		t.Errorf("static files after clearing: %v", got)
	}
	bad := r.file("bad.yaml", "- mac_interface_map: []\n  network_yaml: \"interfaces: [\"\n")
	res := r.run("patch", "infra-env", ie, "--static-network-config", bad)
	if res.code != cli.ExitError || !strings.Contains(res.stderr, "static_network_config") || !strings.Contains(res.stderr, "(HTTP 400)") {
		t.Errorf("invalid NMState: %+v", res)
	}
	typo := r.file("typo.yaml", "- mac_interface_mapp: []\n  network_yaml: x\n")
	if res := r.run("patch", "infra-env", ie, "--static-network-config", typo); res.code != cli.ExitUsage || !strings.Contains(res.stderr, "mac_interface_mapp") {
		t.Errorf("unknown key: %+v", res)
	}
	r.ok("patch", "infra-env", ie, "--static-network-config", r.file("static.json",
		`[{"mac_interface_map":[{"logical_nic_name":"eth0","mac_address":"52:54:00:12:34:01"}],"network_yaml":"interfaces:\n- name: eth0\n  type: ethernet\n  state: up\n"}]`))
	if got := staticFiles(t, r, ie); len(got) != 1 {
		t.Errorf("static files after a JSON patch: %v", got)
	}
	key := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOmz5H7Sx3X8lD1PCZ3xLQ7XB9zYQn8v5m2pZ9kW3cJ4 ops"
	r.ok("patch", "infra-env", ie, "--ssh-key-file", r.file("key.pub", key), "--ntp-source", "ntp1.example.com,ntp2.example.com")
	out := r.ok("get", "infra-envs", ie, "-o", "json")
	if !strings.Contains(out, key) || !strings.Contains(out, `"additional_ntp_sources": "ntp1.example.com,ntp2.example.com"`) {
		t.Errorf("after patch: %s", out)
	}
	if res := r.run("patch", "infra-env", ie); res.code != cli.ExitUsage || !strings.Contains(res.stderr, "nothing to change") {
		t.Errorf("empty patch: %+v", res)
	}
}
