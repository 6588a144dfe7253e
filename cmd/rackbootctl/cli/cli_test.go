package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/internal/testserver"
)

const hostID = "aaaaaaaa-0000-4000-8000-000000000001"

// registerHost downloads the discovery Ignition with the CLI and
// registers hostID with the agent token inside it, as the agent would.
func registerHost(t *testing.T, r *rig, infraEnv, id string) {
	t.Helper()
	ign := r.ok("download", "discovery-ignition", "--infra-env", infraEnv)
	ac, err := testserver.AgentConfig([]byte(ign))
	if err != nil {
		t.Fatal(err)
	}
	if err := testserver.Register(context.Background(), ac, id); err != nil {
		t.Fatal(err)
	}
}

func TestInfraEnvAndHostLifecycle(t *testing.T) {
	r := newRig(t)
	ps := r.file("pull-secret.json", pullSecret)
	cl := createdID(t, r.ok("create", "cluster", "--name", "prod", "--version", "4.16", "--base-domain",
		"example.com", "--control-plane-count", "3", "--pull-secret-file", ps))
	ie := createdID(t, r.ok("create", "infra-env", "--name", "lab", "--pull-secret-file", ps, "--ntp-source", "pool.ntp.org"))

	out := r.ok("get", "infra-envs")
	if !strings.HasPrefix(out, "ID ") || !strings.Contains(out, ie) || !strings.Contains(out, " lab ") {
		t.Errorf("get infra-envs:\n%s", out)
	}
	out = r.ok("get", "clusters", cl, "-o", "wide")
	if !strings.Contains(out, "prod") || !strings.Contains(out, "example.com") || !strings.Contains(out, "STATUS-INFO") {
		t.Errorf("get clusters -o wide:\n%s", out)
	}
	if res := r.run("get", "hosts"); res.code != 0 || !strings.Contains(res.stderr, "No hosts found") {
		t.Errorf("get hosts with none: %+v", res)
	}

	registerHost(t, r, ie, hostID)
	out = r.ok("get", "hosts")
	if !strings.Contains(out, hostID) || !strings.Contains(out, "discovering-unbound") || !strings.Contains(out, "false") {
		t.Errorf("get hosts after registration:\n%s", out)
	}
	if got := r.ok("approve", "host", hostID); got != "host/"+hostID+" approved\n" {
		t.Errorf("approve: %q", got)
	}
	r.ok("patch", "host", hostID, "--hostname", "node-1", "--role", "master")
	r.ok("bind", "host", hostID, "--cluster", cl)

	var h client.Host
	if err := json.Unmarshal([]byte(r.ok("get", "hosts", hostID, "-o", "json")), &h); err != nil {
		t.Fatal(err)
	}
	if !h.Approved || h.RequestedHostname != "node-1" || h.Role != "master" || h.ClusterID != cl {
		t.Errorf("host after approve/patch/bind: %+v", h.Host)
	}
	if out := r.ok("get", "hosts", "--cluster", cl); !strings.Contains(out, "node-1") {
		t.Errorf("get hosts --cluster:\n%s", out)
	}
	y := r.ok("get", "hosts", hostID, "-o", "yaml", "--infra-env", ie)
	if !strings.Contains(y, "requested_hostname: node-1") || !strings.Contains(y, "approved: true") {
		t.Errorf("yaml:\n%s", y)
	}
	r.ok("unbind", "host", hostID)
	if out := r.ok("get", "events", "--host", hostID); !strings.Contains(out, "host/"+hostID) {
		t.Errorf("get events --host:\n%s", out)
	}
	if out := r.ok("get", "events", hostID, "-o", "json"); !strings.Contains(out, `"host_id": "`+hostID) {
		t.Errorf("get events ID -o json:\n%s", out)
	}
	r.ok("delete", "host", hostID)
	if res := r.run("get", "hosts", hostID); res.code != cli.ExitError || !strings.Contains(res.stderr, "not found") {
		t.Errorf("get deleted host: %+v", res)
	}
	r.ok("delete", "infra-env", ie)
	r.ok("delete", "cluster", cl)
	if out := r.ok("get", "clusters", "-o", "json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("clusters after delete: %s", out)
	}
}

func TestDownloads(t *testing.T) {
	r := newRig(t)
	ie := createdID(t, r.ok("create", "infra-env", "--name", "lab", "--pull-secret-file", "-"))
	path := filepath.Join(r.dir, "discovery.ign")
	if out := r.ok("download", "discovery-ignition", "--infra-env", ie, "-o", path); out != "" {
		t.Errorf("download -o printed %q", out)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("downloaded file: %v, %v", st, err)
	}
	b, _ := os.ReadFile(path)
	ac, err := testserver.AgentConfig(b)
	if err != nil || ac.InfraEnvID != ie || ac.ServiceURL != r.srv.URL {
		t.Errorf("agent config %+v, %v", ac, err)
	}
	script := r.ok("download", "ipxe-script", "--infra-env", ie)
	if !strings.HasPrefix(script, "#!ipxe\n") || !strings.Contains(script, "chain") {
		t.Errorf("ipxe script:\n%s", script)
	}
	u := strings.TrimSpace(r.ok("image-url", ie))
	if !strings.HasPrefix(u, r.srv.URL+"/api/assisted-install/v2/infra-envs/"+ie+"/downloads/files?") {
		t.Errorf("image-url: %q", u)
	}
	if res := r.run("download", "discovery-ignition", "--infra-env", "11111111-0000-4000-8000-000000000000"); res.code != cli.ExitError || !strings.Contains(res.stderr, "HTTP 404") {
		t.Errorf("download of a missing infra-env: %+v", res)
	}
}

func TestErrorsAndExitCodes(t *testing.T) {
	r := newRig(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, cli.ExitUsage, "no command given"},
		{[]string{"frobnicate"}, cli.ExitUsage, `unknown command "frobnicate"`},
		{[]string{"--bogus", "get", "hosts"}, cli.ExitUsage, "flag provided but not defined: -bogus"},
		{[]string{"get"}, cli.ExitUsage, "which resource"},
		{[]string{"get", "pods"}, cli.ExitUsage, `unknown resource "pods"`},
		{[]string{"get", "hosts", "-o", "xml"}, cli.ExitUsage, "unknown output format"},
		{[]string{"get", "hosts", "--bogus"}, cli.ExitUsage, "flag provided but not defined: -bogus"},
		{[]string{"get", "clusters", "-w", "--interval", "1ms"}, cli.ExitUsage, "at least 100ms"},
		{[]string{"create", "cluster", "--name", "x"}, cli.ExitUsage, "needs --name and --version"},
		{[]string{"create", "infra-env", "--name", "x"}, cli.ExitUsage, "--pull-secret-file"},
		{[]string{"create", "infra-env", "--name", "x", "--pull-secret-file", "/nonexistent/ps"}, cli.ExitError, "reading the pull secret"},
		{[]string{"patch", "host", hostID}, cli.ExitUsage, "nothing to change"},
		{[]string{"approve", "host"}, cli.ExitUsage, "one host ID"},
		{[]string{"approve", "host", hostID}, cli.ExitError, "not found"},
		{[]string{"download", "kernel"}, cli.ExitUsage, "which file"},
		{[]string{"get", "clusters", "cccccccc-0000-4000-8000-000000000000"}, cli.ExitError, "(HTTP 404)"},
		{[]string{"create", "infra-env", "--name", "x", "--pull-secret-file", r.file("bad", "not-json")}, cli.ExitError, "(HTTP 400)"},
	} {
		res := r.run(c.args...)
		if res.code != c.code || !strings.Contains(res.stderr, c.want) || !strings.HasPrefix(res.stderr, "error: ") {
			t.Errorf("rackbootctl %q: exit %d, stderr %q; want exit %d and %q", c.args, res.code, res.stderr, c.code, c.want)
		}
		if strings.Contains(res.stderr, "not-json") {
			t.Errorf("the pull secret file's content was echoed: %s", res.stderr)
		}
	}
}

func TestFindingServerAndToken(t *testing.T) {
	r := newRig(t)
	url, tok := r.env["RACKBOOT_URL"], r.env["RACKBOOT_TOKEN"]

	r.env["RACKBOOT_TOKEN"] = "wrong-token"
	res := r.run("get", "clusters")
	if res.code != cli.ExitError || !strings.Contains(res.stderr, "(HTTP 401)") || !strings.Contains(res.stderr, "RACKBOOT_TOKEN") {
		t.Errorf("wrong token: %+v", res)
	}
	if strings.Contains(res.stderr, "wrong-token") {
		t.Errorf("the token was printed: %s", res.stderr)
	}
	r.ok("get", "clusters", "--token", tok) // the flag wins over the environment

	delete(r.env, "RACKBOOT_TOKEN")
	dir := t.TempDir()
	res = r.run("get", "clusters", "--data-dir", dir)
	if res.code != cli.ExitError || !strings.Contains(res.stderr, filepath.Join(dir, "admin-token")) {
		t.Errorf("no token anywhere: %+v", res)
	}
	if err := os.WriteFile(filepath.Join(dir, "admin-token"), []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.ok("--data-dir", dir, "get", "clusters")

	delete(r.env, "RACKBOOT_URL")
	res = r.run("get", "clusters", "--data-dir", dir, "--url", "http://127.0.0.1:1")
	if res.code != cli.ExitError || !strings.Contains(res.stderr, "cannot reach rackbootd at http://127.0.0.1:1") {
		t.Errorf("unreachable server: %+v", res)
	}
	res = r.run("-v", "get", "clusters", "--data-dir", dir, "--url", url)
	if res.code != 0 || !strings.Contains(res.stderr, "path=/api/assisted-install/v2/clusters") || !strings.Contains(res.stderr, "status=200") {
		t.Errorf("-v: %+v", res)
	}
	if out := r.ok("version", "--url", url); !strings.Contains(out, "rackbootctl test") || !strings.Contains(out, "server "+url+": API ") {
		t.Errorf("version: %q", out)
	}
}

func TestHelp(t *testing.T) {
	r := newRig(t)
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		if out := r.ok(args...); !strings.Contains(out, "get clusters|infra-envs|hosts|events") {
			t.Errorf("%v: %s", args, out)
		}
	}
	if out := r.ok("create", "infra-env", "-h"); !strings.Contains(out, "-pull-secret-file") {
		t.Errorf("create infra-env -h: %s", out)
	}
}

// signing-keys lists the kids with the active one marked; rotate adds an
// active key; retire removes one; the active key cannot be retired.
func TestSigningKeys(t *testing.T) {
	r := newRig(t)
	active := func(out string) (string, []string) {
		var act string
		var kids []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			kid, mark, _ := strings.Cut(line, "\t")
			kids = append(kids, kid)
			if mark == "active" {
				act = kid
			}
		}
		return act, kids
	}
	first, kids := active(r.ok("signing-keys"))
	if first == "" || len(kids) != 1 {
		t.Fatalf("signing-keys: %v, active %q", kids, first)
	}
	second, kids := active(r.ok("signing-keys", "rotate"))
	if second == "" || second == first || len(kids) != 2 {
		t.Fatalf("after rotate: %v, active %q", kids, second)
	}
	// A kid is base64url, so it may start with "-": it goes after --.
	if res := r.run("signing-keys", "retire", "--", second); res.code != cli.ExitError || !strings.Contains(res.stderr, "active") {
		t.Errorf("retiring the active key: %+v", res)
	}
	if res := r.run("signing-keys", "retire", "-"+second); res.code != cli.ExitUsage || !strings.Contains(res.stderr, `goes after --`) {
		t.Errorf("a kid starting with - not after --: %+v", res)
	}
	if _, kids := active(r.ok("signing-keys", "retire", "--", first)); len(kids) != 1 || kids[0] != second {
		t.Fatalf("after retire: %v", kids)
	}
	if res := r.run("signing-keys", "spin"); res.code != cli.ExitUsage {
		t.Errorf("unknown sub-verb: %+v", res)
	}
}
