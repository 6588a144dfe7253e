package cli_test

import (
	"strings"
	"testing"
)

// Infra-envs and clusters are named by their names wherever an ID is
// taken; a name two of them share is an error listing their IDs.
func TestNamesWhereIDs(t *testing.T) {
	r := newRig(t)
	lab := createdID(t, r.ok("create", "infra-env", "--name", "lab", "--pull-secret-file", "-"))
	dup1 := createdID(t, r.ok("create", "infra-env", "--name", "twin", "--pull-secret-file", "-"))
	dup2 := createdID(t, r.ok("create", "infra-env", "--name", "twin", "--pull-secret-file", "-"))
	cl := createdID(t, r.ok("create", "cluster", "--name", "prod", "--version", "4.16", "--base-domain", "example.com",
		"--pull-secret-file", "-"))
	registerHost(t, r, lab, hostID)
	bound := createdID(t, r.ok("create", "infra-env", "--name", "bound", "--cluster", "prod", "--pull-secret-file", "-"))
	if out := r.ok("get", "infra-env", "bound", "-o", "jsonpath={.cluster_id}"); out != cl || bound == "" {
		t.Errorf("create infra-env --cluster prod: bound to %q, want %s", out, cl)
	}

	if out := r.ok("get", "infra-env", "lab", "-o", "json"); !strings.Contains(out, `"id": "`+lab+`"`) {
		t.Errorf("get infra-env lab:\n%s", out)
	}
	if out := r.ok("get", "hosts", "--infra-env", "lab", "-o", "json"); !strings.Contains(out, hostID) {
		t.Errorf("get hosts --infra-env lab:\n%s", out)
	}
	if out := r.ok("image-url", "lab"); !strings.Contains(out, lab) {
		t.Errorf("image-url lab: %s", out)
	}
	if out := r.ok("patch", "infra-env", "lab", "--ntp-source", "ntp.example.com"); out != "infra-env/"+lab+" patched\n" {
		t.Errorf("patch infra-env lab: %q", out)
	}
	if out := r.ok("describe", "infra-env", "lab"); !strings.Contains(out, lab) || !strings.Contains(out, hostID) ||
		!strings.Contains(out, "ntp.example.com") {
		t.Errorf("describe infra-env lab:\n%s", out)
	}
	if out := r.ok("describe", "cluster", "prod"); !strings.Contains(out, cl) {
		t.Errorf("describe cluster prod:\n%s", out)
	}
	if out := r.ok("bind", "host", hostID, "--cluster", "prod"); out != "host/"+hostID+" bound to cluster/"+cl+"\n" {
		t.Errorf("bind --cluster prod: %q", out)
	}
	if out := r.ok("get", "hosts", "--cluster", "prod", "-o", "json"); !strings.Contains(out, hostID) {
		t.Errorf("get hosts --cluster prod:\n%s", out)
	}
	if out := r.ok("get", "hosts", "-o", "name"); out != "host/"+hostID+"\n" {
		t.Errorf("get hosts -o name: %q", out)
	}
	if out := r.ok("get", "clusters", "-o", "jsonpath={range .items[*]}{.name} {.openshift_version}{end}"); out != "prod 4.16" {
		t.Errorf("get clusters -o jsonpath: %q", out)
	}
	if out := r.ok("get", "cluster", "prod", "-o=jsonpath={.id}"); out != cl {
		t.Errorf("get cluster prod -o jsonpath: %q", out)
	}
	if res := r.run("get", "hosts", "-o", "jsonpath=", "-w"); res.code != 2 {
		t.Errorf("get -o jsonpath= -w: exit %d: %s", res.code, res.stderr)
	}
	for _, args := range [][]string{{"get", "infra-env", "twin"}, {"get", "hosts", "--infra-env", "twin"}, {"delete", "infra-env", "twin"}} {
		res := r.run(args...)
		if res.code != 1 || !strings.Contains(res.stderr, `2 infra-envs are called "twin"`) ||
			!strings.Contains(res.stderr, dup1) || !strings.Contains(res.stderr, dup2) {
			t.Errorf("rackbootctl %v: exit %d: %s", args, res.code, res.stderr)
		}
	}
	if res := r.run("get", "infra-env", "nope"); res.code != 1 || !strings.Contains(res.stderr, `no infra-env has the ID or name "nope"`) {
		t.Errorf("get infra-env nope: exit %d: %s", res.code, res.stderr)
	}
	if out := r.ok("delete", "infra-env", dup1); out != "infra-env/"+dup1+" deleted\n" {
		t.Errorf("delete by ID: %q", out)
	}
	if out := r.ok("delete", "infra-env", "twin"); out != "infra-env/"+dup2+" deleted\n" {
		t.Errorf("delete twin (one left): %q", out)
	}
}
