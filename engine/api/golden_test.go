package api

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine/models"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// normalizer replaces what changes from run to run (ids, times, step ids,
// tokens, the test server's port) with fixed names.
type normalizer struct{ pairs []string }

var (
	timeRE   = regexp.MustCompile(`20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	stepRE   = regexp.MustCompile(`"step_id": "([a-z-]+)-[0-9a-f]{8}"`)
	jwtRE    = regexp.MustCompile(`eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`)
	serverRE = regexp.MustCompile(`127\.0\.0\.1:\d+`)
)

func (n *normalizer) add(old, name string) { n.pairs = append(n.pairs, old, name) }

func (n *normalizer) apply(b []byte) []byte {
	s := strings.NewReplacer(n.pairs...).Replace(string(b))
	s = timeRE.ReplaceAllString(s, "TIME")
	s = stepRE.ReplaceAllString(s, `"step_id": "${1}-STEPID"`)
	s = jwtRE.ReplaceAllString(s, "TOKEN")
	return []byte(serverRE.ReplaceAllString(s, "SERVER"))
}

// golden compares a JSON answer (indented) with testdata/name.
func golden(t *testing.T, n *normalizer, name string, body []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(body), "", "  "); err != nil {
		buf.Reset()
		buf.Write(body)
	}
	got := append(n.apply(buf.Bytes()), '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update to accept):\n%s", path, got)
	}
}

// The documents the API answers, as a user and an agent see them.
func TestGoldenResponses(t *testing.T) {
	e := newMemEnv(t)
	n := &normalizer{}
	r := e.must(adminCred(), 201, "POST", "/clusters", map[string]any{
		"name": "rack1", "openshift_version": "4.17", "pull_secret": testPullSecret, "base_dns_domain": "example.com",
		"api_vips": []map[string]string{{"ip": "10.55.0.10"}}, "ingress_vips": []map[string]string{{"ip": "10.55.0.11"}},
		"cluster_networks": []map[string]any{{"cidr": "10.128.0.0/14", "host_prefix": 23}},
		"service_networks": []map[string]any{{"cidr": "172.30.0.0/16"}},
	})
	var c models.Cluster
	r.decode(t, &c)
	n.add(c.ID, "CLUSTER_ID")
	golden(t, n, "cluster_create.json", r.body)

	r = e.must(adminCred(), 201, "POST", "/infra-envs", map[string]any{"name": "ie1", "pull_secret": testPullSecret,
		"cluster_id": c.ID, "additional_ntp_sources": "ntp.example.com", "proxy": map[string]string{"no_proxy": ".example.com"}})
	var ie models.InfraEnv
	r.decode(t, &ie)
	n.add(ie.ID, "INFRA_ENV_ID")
	golden(t, n, "infra_env_create.json", r.body)

	r = e.must(adminCred(), 200, "GET", "/infra-envs/"+ie.ID+"/downloads/files?file_name=discovery.ign", nil)
	golden(t, n, "discovery.ign", r.body)
	r = e.must(adminCred(), 200, "GET", "/infra-envs/"+ie.ID+"/downloads/files?file_name=ipxe-script&mac=52:54:00:12:34:01", nil)
	golden(t, n, "ipxe-script.ipxe", r.body)

	tok := e.agentConfig(ie.ID).Token
	agent := cred{agent: tok}
	r = e.must(agent, 201, "POST", "/infra-envs/"+ie.ID+"/hosts", models.HostCreateParams{HostID: testHostID, DiscoveryAgentVersion: "rackboot-agent/test"})
	golden(t, n, "host_register.json", r.body)
	steps := "/infra-envs/" + ie.ID + "/hosts/" + testHostID + "/instructions"
	r = e.must(agent, 200, "GET", steps, nil)
	golden(t, n, "steps_inventory.json", r.body)
	e.must(agent, 204, "POST", steps, models.StepReply{StepType: models.StepTypeInventory, StepID: "inventory-00000000", Output: inventory(t)})
	r = e.must(agent, 200, "GET", steps, nil)
	golden(t, n, "steps_empty.json", r.body)

	r = e.must(adminCred(), 201, "PATCH", "/infra-envs/"+ie.ID+"/hosts/"+testHostID, map[string]any{
		"approved": true, "host_role": "master", "host_name": "node-1"})
	var h models.APIHost
	r.decode(t, &h)
	h.Inventory = "INVENTORY"
	b, _ := json.Marshal(h)
	golden(t, n, "host_patched.json", b)

	r = e.must(adminCred(), 200, "GET", "/events?infra_env_id="+ie.ID, nil)
	golden(t, n, "events.json", r.body)
	r = e.do(cred{}, "GET", "/clusters", nil)
	golden(t, n, "error_401.json", r.body)
}
