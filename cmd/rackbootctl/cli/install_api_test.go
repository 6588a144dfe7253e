package cli_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
)

// Against the real API: install of a cluster that is not ready exits 1
// with the server's failing validations, and changes nothing (status,
// install clock, events of an installation).
func TestInstallNotReadyAgainstAPI(t *testing.T) {
	r := newRig(t)
	ps := r.file("pull-secret.json", pullSecret)
	cl := createdID(t, r.ok("create", "cluster", "--name", "prod", "--version", "4.16", "--base-domain",
		"example.com", "--control-plane-count", "3", "--pull-secret-file", ps))
	before := r.ok("get", "clusters", cl, "-o", "json")

	res := r.run("install", "prod")
	if res.code != cli.ExitError || res.stdout != "" {
		t.Fatalf("install of an empty cluster: exit %d, stdout %q", res.code, res.stdout)
	}
	for _, want := range []string{`^error: cluster prod \(` + cl + `\) is pending-for-input, not ready to install \(HTTP 409\); failing validations:\n`,
		`\nOBJECT +ID +STATUS +MESSAGE\n`, `\ncluster +sufficient-masters-count +failure +The cluster must have exactly 3 dedicated control plane nodes`,
		`\ncluster +api-vips-defined +failure +`} {
		if !regexp.MustCompile(want).MatchString(res.stderr) {
			t.Errorf("stderr does not match %q:\n%s", want, res.stderr)
		}
	}
	if after := r.ok("get", "clusters", cl, "-o", "json"); after != before {
		t.Errorf("a refused install changed the cluster:\n%s\nwas\n%s", after, before)
	}
	var c client.Cluster
	if err := json.Unmarshal([]byte(before), &c); err != nil {
		t.Fatal(err)
	}
	if c.Status == "installing" || !c.InstallStartedAt.IsZero() {
		t.Errorf("cluster after a refused install: %s, started %v", c.Status, c.InstallStartedAt)
	}
	if ev := r.ok("get", "events", "--cluster", cl); strings.Contains(ev, "preparing-for-installation") {
		t.Errorf("a refused install left installation events:\n%s", ev)
	}
}

// patch host --ignition-override-file against the real API: an override
// Ignition's parser refuses is a 400 with the parser's message and leaves
// the host as it was; a valid one is stored, and --clear-ignition-override
// removes it.
func TestPatchHostIgnitionOverride(t *testing.T) {
	r := newRig(t)
	ie := createdID(t, r.ok("create", "infra-env", "--name", "lab", "--pull-secret-file", "-"))
	registerHost(t, r, ie, hostID)
	bad := r.file("bad.ign", `{"ignition":{"version":"9.9.9"}}`)
	res := r.run("patch", "host", hostID, "--ignition-override-file", bad)
	if res.code != cli.ExitError || !strings.Contains(res.stderr, "(HTTP 400)") || !strings.Contains(res.stderr, "version") {
		t.Errorf("invalid override: exit %d, stderr %q; want 1 with the parser's message and HTTP 400", res.code, res.stderr)
	}
	var h client.Host
	if err := json.Unmarshal([]byte(r.ok("get", "hosts", hostID, "-o", "json")), &h); err != nil {
		t.Fatal(err)
	}
	if h.IgnitionConfigOverrides != "" {
		t.Errorf("a refused override was stored: %q", h.IgnitionConfigOverrides)
	}
	good := `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/rack","contents":{"source":"data:,r1"}}]}}`
	r.ok("patch", "host", hostID, "--ignition-override-file", r.file("good.ign", good))
	if err := json.Unmarshal([]byte(r.ok("get", "hosts", hostID, "-o", "json")), &h); err != nil {
		t.Fatal(err)
	}
	if h.IgnitionConfigOverrides != good {
		t.Errorf("override stored as %q, want %q", h.IgnitionConfigOverrides, good)
	}
	r.ok("patch", "host", hostID, "--clear-ignition-override")
	h = client.Host{}
	if err := json.Unmarshal([]byte(r.ok("get", "hosts", hostID, "-o", "json")), &h); err != nil {
		t.Fatal(err)
	}
	if h.IgnitionConfigOverrides != "" {
		t.Errorf("override after --clear-ignition-override: %q", h.IgnitionConfigOverrides)
	}
}

// install-config overrides and custom manifests against the real API: an
// override shows in get install-config, one that is not a JSON object is a
// 400 and changes nothing; a manifest is listed after create.
func TestInstallConfigAndManifests(t *testing.T) {
	r := newRig(t)
	ps := r.file("pull-secret.json", pullSecret)
	r.ok("create", "cluster", "--name", "prod", "--version", "4.16", "--base-domain", "example.com",
		"--sno", "--machine-network", "10.0.0.0/24", "--pull-secret-file", ps)
	before := r.ok("get", "install-config", "prod")
	if !strings.Contains(before, "baseDomain: example.com") || strings.Contains(before, c2VjcmV0) {
		t.Errorf("get install-config:\n%s", before)
	}
	r.ok("patch", "cluster", "prod", "--install-config-overrides-file", r.file("ov.json", `{"fips":true}`))
	if ic := r.ok("get", "install-config", "prod"); !strings.Contains(ic, "fips: true") {
		t.Errorf("install-config after the override:\n%s", ic)
	}
	res := r.run("patch", "cluster", "prod", "--install-config-overrides-file", r.file("bad.json", `[1,2]`))
	if res.code != cli.ExitError || !strings.Contains(res.stderr, "(HTTP 400)") {
		t.Errorf("an override that is not an object: exit %d, %q", res.code, res.stderr)
	}
	if ic := r.ok("get", "install-config", "prod"); !strings.Contains(ic, "fips: true") {
		t.Errorf("a refused override changed the install-config:\n%s", ic)
	}
	mf := r.file("50-chrony.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: chrony\n")
	if out := r.ok("create", "manifest", "--cluster", "prod", "--file", mf, "--folder", "openshift"); out != "manifest/openshift/50-chrony.yaml created\n" {
		t.Errorf("create manifest: %q", out)
	}
	if out := r.ok("get", "manifests", "prod"); !regexp.MustCompile(`(?m)^openshift +50-chrony.yaml$`).MatchString(out) {
		t.Errorf("get manifests:\n%s", out)
	}
}

// c2VjcmV0 is the start of the test pull secret's auth: never printed.
const c2VjcmV0 = "c2VjcmV0LXVzZXI6"
