package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/cluster/rackca"
)

// rackDaemons starts n rackbootd processes on loopback as one rack
// cluster ([cluster] with certificates from a fresh rack CA).
func rackDaemons(t *testing.T, n int) []*testDaemon {
	return startRack(t, n).daemons
}

// testRack is a rack of rackbootd processes and the files they were made
// with.
type testRack struct {
	t       *testing.T
	ca      *rackca.CA
	caDir   string
	peers   []string // "id@addr", the bootstrap list
	daemons []*testDaemon
}

// startRack starts n rackbootd processes on loopback as one rack cluster
// and waits until each is ready.
func startRack(t *testing.T, n int) *testRack {
	t.Helper()
	r := &testRack{t: t, caDir: filepath.Join(t.TempDir(), "rack")}
	ca, err := rackca.Init(r.caDir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	r.ca = ca
	r.daemons = make([]*testDaemon, n)
	ports := freeTCPPorts(t, 2*n)
	for i := range r.daemons {
		r.daemons[i] = newTestDaemon(t, ports[2*i], freePort(t, "udp"))
		r.peers = append(r.peers, fmt.Sprintf("n%d@%s", i+1, ports[2*i+1]))
	}
	list, _ := json.Marshal(r.peers)
	for i, d := range r.daemons {
		id, addr, _ := strings.Cut(r.peers[i], "@")
		d.writeConfig(r.memberConfig(d, id, addr, "bootstrap = "+string(list)))
		d.start(nil)
	}
	for _, d := range r.daemons {
		d.waitNote("READY=1")
	}
	return r
}

// freeTCPPorts returns n distinct loopback TCP addresses that were free a
// moment ago (freePort called n times may return one port twice).
func freeTCPPorts(t *testing.T, n int) []string {
	t.Helper()
	addrs := make([]string, n)
	for i := range addrs {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		addrs[i] = ln.Addr().String()
	}
	return addrs
}

// memberConfig issues node id's files and returns d's configuration as
// that rack member, its peer port on addr, with extra in [cluster].
func (r *testRack) memberConfig(d *testDaemon, id, addr, extra string) string {
	out, err := r.ca.WriteNode(r.caDir, id, time.Now())
	if err != nil {
		r.t.Fatal(err)
	}
	return fmt.Sprintf(`[server]
advertise = "127.0.0.1"
http_listen = %q
data_dir = "state"

[tftp]
enabled = false

[cluster]
node_id = %q
bind = %q
%s
ca = %q
cert = %q
key = %q
secrets_key = %q
admin_token = %q
`, d.httpAddr, id, addr, extra, filepath.Join(out, "ca.crt"), filepath.Join(out, "node.crt"), filepath.Join(out, "node.key"),
		filepath.Join(out, "secrets.key"), filepath.Join(out, "admin-token"))
}

// admin sends an admin request to d (path from the host root) and
// returns the status and body.
func (d *testDaemon) admin(method, path string, body any) (int, []byte) {
	d.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, "http://"+d.httpAddr+path, rd)
	req.Header.Set("Authorization", "Bearer "+d.adminToken())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// Three rackbootd processes with [cluster] form one rack: the cluster API
// of each names the same leader and three voters, a write through a
// follower's API is read through another's, and the cluster API takes the
// admin token only.
func TestRackOfDaemons(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three rackbootd processes")
	}
	ds := rackDaemons(t, 3)
	var leader string
	var follower *testDaemon
	deadline := time.Now().Add(waitLimit)
	for leader == "" && time.Now().Before(deadline) {
		for _, d := range ds {
			code, b := d.admin("GET", "/api/rackboot/v1/cluster", nil)
			var st cluster.Status
			if code != 200 || json.Unmarshal(b, &st) != nil {
				t.Fatalf("cluster status: %d %s", code, b)
			}
			if len(st.Members) != 3 {
				t.Fatalf("members: %s", b)
			}
			if st.Leader != "" && st.Leader != st.Node {
				leader, follower = st.Leader, d
			}
		}
	}
	if follower == nil {
		t.Fatal("no follower knows a leader")
	}
	ie := map[string]any{"name": "via-follower", "pull_secret": `{"auths":{"quay.io":{"auth":"dGVzdGJlZDpzZWtyaXQ="}}}`,
		"cpu_architecture": "x86_64"}
	code, b := follower.admin("POST", "/api/assisted-install/v2/infra-envs", ie)
	if code != http.StatusCreated {
		t.Fatalf("create through a follower: %d %s", code, b)
	}
	var created struct{ ID string }
	_ = json.Unmarshal(b, &created)
	for _, d := range ds {
		if code, b := d.admin("GET", "/api/assisted-install/v2/infra-envs/"+created.ID, nil); code != 200 {
			t.Errorf("read on %s: %d %s", d.httpAddr, code, b)
		}
	}
	// One admin token for the rack: the one in ds[0]'s data_dir (where the
	// local rackbootctl reads it) opens every appliance's API.
	tok := ds[0].adminToken()
	for _, d := range ds {
		req, _ := http.NewRequest("GET", "http://"+d.httpAddr+"/api/assisted-install/v2/infra-envs/"+created.ID, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("the rack's admin token on %s: %s", d.httpAddr, resp.Status)
		}
	}
	resp, err := http.Get("http://" + ds[0].httpAddr + "/api/rackboot/v1/cluster")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("cluster API without a token: %s", resp.Status)
	}
}

// pollUntil calls try every 50 ms until it reports done; past waitLimit
// the test fails with try's last words.
func pollUntil(t *testing.T, try func() (done bool, last string)) {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(waitLimit)
	for {
		done, last := try()
		if done {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal(last)
		}
	}
}

// rackRoles waits until ds[0] knows a leader (node ids n1, n2, … as
// rackDaemons names them) and returns it and the others.
func rackRoles(t *testing.T, ds []*testDaemon) (leader *testDaemon, followers []*testDaemon) {
	t.Helper()
	var st cluster.Status
	pollUntil(t, func() (bool, string) {
		code, b := ds[0].admin("GET", "/api/rackboot/v1/cluster", nil)
		return code == http.StatusOK && json.Unmarshal(b, &st) == nil && st.Leader != "", fmt.Sprintf("no leader: %d %s", code, b)
	})
	for i, d := range ds {
		if fmt.Sprintf("n%d", i+1) == st.Leader {
			leader = d
		} else {
			followers = append(followers, d)
		}
	}
	return leader, followers
}

// discoveryProfile is the [[profile]] testbedImageSet boots, with the
// files newTestDaemon writes.
const discoveryProfile = `
[[profile]]
name = "discovery"
kernel = "vmlinuz"
initrd = "initrd.img"
cmdline = "console=ttyS0"
ignition = "discovery.ign"
`

// A node that becomes the leader writes its configuration file's image
// sets: one added to the followers' files (a reload on a follower leaves
// image sets to the leader) is the rack's once one of them leads.
func TestNewLeaderSyncsImageSets(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three rackbootd processes")
	}
	ds := rackDaemons(t, 3)
	leader, followers := rackRoles(t, ds)
	for _, f := range followers {
		f.writeConfig(f.conf + discoveryProfile + testbedImageSet(false))
		if st := f.reload(); !strings.Contains(st, "STATUS=reloaded") {
			t.Fatalf("reload: %s", st)
		}
	}
	params := map[string]any{"name": "late", "openshift_version": "4.18", "image_set_ref": "testbed",
		"base_dns_domain": "example.com", "pull_secret": `{"auths":{"quay.io":{"auth":"dGVzdGJlZDpzZWtyaXQ="}}}`}
	if code, b := followers[0].admin("POST", "/api/assisted-install/v2/clusters", params); code != http.StatusBadRequest ||
		!strings.Contains(string(b), "names no image set") {
		t.Fatalf("while the leader's file has no such image set: %d %s", code, b)
	}
	leader.stop()
	pollUntil(t, func() (bool, string) {
		code, b := followers[0].admin("POST", "/api/assisted-install/v2/clusters", params)
		return code == http.StatusCreated, fmt.Sprintf("after the leader stopped: %d %s", code, b)
	})
}

// A signing key rotated through a follower's API, and the old one retired
// through the other follower's, is the rack's: every appliance then holds
// the same ring.
func TestSigningKeysThroughFollowers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three rackbootd processes")
	}
	ds := rackDaemons(t, 3)
	_, followers := rackRoles(t, ds)
	old := followers[0].signingKeysOf().ActiveKID
	code, b := followers[0].admin("POST", "/api/assisted-install/v2/signing-keys/actions/rotate", nil)
	var sk signingKeys
	if code != http.StatusOK || json.Unmarshal(b, &sk) != nil || sk.ActiveKID == old {
		t.Fatalf("rotate through a follower: %d %s", code, b)
	}
	if code, b := followers[1].admin("DELETE", "/api/assisted-install/v2/signing-keys/"+old, nil); code != http.StatusNoContent {
		t.Fatalf("retire through the other follower: %d %s", code, b)
	}
	for _, d := range ds {
		pollUntil(t, func() (bool, string) {
			got := d.signingKeysOf()
			return got.ActiveKID == sk.ActiveKID && slices.Equal(got.KIDs, []string{sk.ActiveKID}),
				fmt.Sprintf("%s holds %+v, want only %s", d.httpAddr, got, sk.ActiveKID)
		})
	}
}
