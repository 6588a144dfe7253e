package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/cluster/clusterapi"
	"github.com/rackboot/rackboot/cluster/clustertest"
	"github.com/rackboot/rackboot/cluster/rackca"
	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
)

const clusterToken = "cluster-test-token"

// clusterCLI runs rackbootctl against a cluster API on 127.0.0.1.
func clusterCLI(t *testing.T, url string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := map[string]string{"RACKBOOT_URL": url, "RACKBOOT_TOKEN": clusterToken}
	code := cli.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb, Version: "test",
		Getenv: func(k string) string { return env[k] }})
	if strings.Contains(out.String()+errb.String(), clusterToken) {
		t.Errorf("rackbootctl %v printed the token", args)
	}
	return code, out.String(), errb.String()
}

// serveCluster serves st's cluster API, requiring the test token.
func serveCluster(t *testing.T, st *cluster.Store) string {
	h := clusterapi.New(st, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+clusterToken {
			http.Error(w, `{"code":"401","reason":"admin token"}`, http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// row finds the status table's row of node id.
func row(t *testing.T, out, id string) []string {
	t.Helper()
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == id {
			return f
		}
	}
	t.Fatalf("no row for %s in:\n%s", id, out)
	return nil
}

// cluster status against a real three-node rack (asked at a follower)
// prints the members, the leader and each member's lag; join and remove
// change the membership.
func TestClusterStatusJoinRemove(t *testing.T) {
	rack := clustertest.Start(t, 3)
	leader := rack.Leader()
	var follower *cluster.Store
	for _, st := range rack.Nodes {
		if st != leader {
			follower = st
		}
	}
	url := serveCluster(t, follower)

	code, out, errs := clusterCLI(t, url, "cluster", "status")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	t.Logf("\n%s", out)
	lst, _ := leader.Status(context.Background())
	if !regexp.MustCompile(`^leader n[123] \(127\.0\.0\.1:\d+\), term \d+, commit index \d+`).MatchString(out) ||
		!strings.Contains(out, "leader "+lst.Node+" ") {
		t.Errorf("header does not name leader %s:\n%s", lst.Node, out)
	}
	if !strings.Contains(out, "NODE") || !strings.Contains(out, "LAG") {
		t.Errorf("no table header:\n%s", out)
	}
	states := map[string]int{}
	for _, p := range rack.Peers {
		f := row(t, out, p.ID)
		if f[1] != p.Addr || f[2] != "yes" {
			t.Errorf("row %v, want %s at %s, voter", f, p.ID, p.Addr)
		}
		states[f[3]]++
		if !regexp.MustCompile(`^\d+$`).MatchString(f[6]) {
			t.Errorf("lag of %s is %q", p.ID, f[6])
		}
	}
	if states["Leader"] != 1 || states["Follower"] != 2 {
		t.Errorf("states %v", states)
	}

	code, out, _ = clusterCLI(t, url, "cluster", "status", "-o", "json")
	var st cluster.Status
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || len(st.Members) != 3 || st.Leader != lst.Node {
		t.Errorf("json status (exit %d):\n%s", code, out)
	}

	addr, wait := rack.Pending("n4")
	code, out, errs = clusterCLI(t, url, "cluster", "join", "--node-id", "n4", "--addr", addr)
	if code != 0 {
		t.Fatalf("join: exit %d: %s", code, errs)
	}
	if _, err := wait(); err != nil {
		t.Fatal(err)
	}
	if f := row(t, out, "n4"); f[1] != addr {
		t.Errorf("joined row %v", f)
	}

	code, out, errs = clusterCLI(t, url, "cluster", "remove", "n4")
	if code != 0 || !strings.Contains(out, "removed n4") || strings.Contains(out, "\nn4 ") {
		t.Errorf("remove: exit %d:\n%s%s", code, out, errs)
	}
	code, _, errs = clusterCLI(t, url, "cluster", "remove", "n9")
	if code != 1 || !strings.Contains(errs, "404") || !strings.Contains(errs, `no member "n9"`) {
		t.Errorf("remove of no member: exit %d: %s", code, errs)
	}
	code, _, errs = clusterCLI(t, url, "cluster", "join", "--node-id", "bad id", "--addr", "127.0.0.1:1")
	if code != 1 || !strings.Contains(errs, "400") {
		t.Errorf("join of a bad id: exit %d: %s", code, errs)
	}
}

// cluster init and issue write a CA and node files that load as
// identities; they refuse to overwrite.
func TestClusterInitIssue(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rack")
	code, out, errs := clusterCLI(t, "http://127.0.0.1:1", "cluster", "init", "--dir", dir, "--node-id", "rb1", "--node-id", "rb2")
	if code != 0 {
		t.Fatalf("init: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "rack CA created") || !strings.Contains(out, "node rb2") {
		t.Errorf("init printed:\n%s", out)
	}
	if code, _, _ = clusterCLI(t, "", "cluster", "issue", "--dir", dir, "--node-id", "rb3"); code != 0 {
		t.Fatalf("issue: exit %d", code)
	}
	for _, id := range []string{"rb1", "rb2", "rb3"} {
		d := filepath.Join(dir, id)
		ident, err := rackca.LoadIdentity(filepath.Join(d, "ca.crt"), filepath.Join(d, "node.crt"), filepath.Join(d, "node.key"))
		if err != nil || ident.NodeID != id {
			t.Errorf("%s: %v", id, err)
		}
	}
	if code, _, errs = clusterCLI(t, "", "cluster", "init", "--dir", dir); code != 1 || !strings.Contains(errs, "already exists") {
		t.Errorf("second init: exit %d: %s", code, errs)
	}
	if code, _, _ = clusterCLI(t, "", "cluster", "issue", "--dir", dir, "--node-id", "../x"); code == 0 {
		t.Error("issued a node id with a slash")
	}
	if _, err := os.Stat(filepath.Join(dir, "ca.key")); err != nil {
		t.Error(err)
	}
}
