package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
)

// createJSON runs create with -o json and decodes what it printed into v.
func createJSON(t *testing.T, r *rig, v any, args ...string) {
	t.Helper()
	out := r.ok(append(append([]string{"create"}, args...), "-o", "json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("create %s -o json: %v\n%s", args[0], err, out)
	}
}

// The optional flags of create reach the server (the API's parameters
// hold them as pointers) and come back in the created objects.
func TestCreateOptionalFlags(t *testing.T) {
	r := newRig(t)
	ps := r.file("pull-secret.json", pullSecret)
	var cl client.Cluster
	createJSON(t, r, &cl, "cluster", "--name", "held", "--version", "4.16", "--base-domain", "example.com",
		"--hold-installation", "--network-type", "OVNKubernetes", "--pull-secret-file", ps)
	if !cl.HoldInstallation || cl.NetworkType != "OVNKubernetes" || cl.Name != "held" || !cl.PullSecretSet {
		t.Errorf("created cluster: hold %v, network type %q, name %q, pull secret set %v",
			cl.HoldInstallation, cl.NetworkType, cl.Name, cl.PullSecretSet)
	}

	var ie client.InfraEnv
	createJSON(t, r, &ie, "infra-env", "--name", "proxied", "--cluster", cl.ID, "--http-proxy", "http://proxy:3128",
		"--ntp-source", "pool.ntp.org", "--pull-secret-file", ps)
	if ie.ClusterID != cl.ID || ie.AdditionalNtpSources != "pool.ntp.org" || ie.Proxy == nil ||
		ie.Proxy.HTTPProxy == nil || *ie.Proxy.HTTPProxy != "http://proxy:3128" {
		t.Errorf("created infra-env: cluster %q, ntp %q, proxy %+v", ie.ClusterID, ie.AdditionalNtpSources, ie.Proxy)
	}
	wide := r.ok("get", "infra-envs", ie.ID, "-o", "wide")
	if row := strings.Split(strings.TrimSpace(wide), "\n"); len(row) != 2 || !strings.HasSuffix(row[1], "set") {
		t.Errorf("get infra-envs -o wide does not show the proxy set:\n%s", wide)
	}
}
