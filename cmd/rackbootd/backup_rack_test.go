package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/engine/backup"
)

// killHard kills d with SIGKILL and waits for it to exit.
func killHard(t *testing.T, d *testDaemon) {
	t.Helper()
	d.signal(syscall.SIGKILL)
	err := <-d.exited
	d.exited <- err
}

// clusterMembers is the member ids of d's cluster status.
func clusterMembers(t *testing.T, d *testDaemon) []string {
	t.Helper()
	code, b := d.admin("GET", "/api/rackboot/v1/cluster", nil)
	var st cluster.Status
	if code != http.StatusOK || json.Unmarshal(b, &st) != nil {
		t.Fatalf("cluster status: %d %s", code, b)
	}
	var ids []string
	for _, m := range st.Members {
		ids = append(ids, m.ID)
	}
	return ids
}

// addMember starts a new appliance as rack member id that waits to be
// added, adds it through via's API with rackbootctl cluster join, and
// waits until it has caught up.
func (r *testRack) addMember(via *testDaemon, id string) *testDaemon {
	r.t.Helper()
	ports := freeTCPPorts(r.t, 2)
	d := newTestDaemon(r.t, ports[0], freePort(r.t, "udp"))
	addr := ports[1]
	d.writeConfig(r.memberConfig(d, id, addr, ""))
	d.start(nil)
	out, code := ctl(r.t, "--url", "http://"+via.httpAddr, "--token", via.adminToken(), "cluster", "join", "--node-id", id, "--addr", addr)
	if code != 0 {
		r.t.Fatalf("rackbootctl cluster join: exit %d: %s", code, out)
	}
	d.waitNote("READY=1")
	return d
}

// A backup taken through a follower of a rack of three holds what the
// leader acknowledged just before (the follower waits for the leader's
// commit index), and restored into a new rack's first appliance it gives
// the same state, BMC password included; a second new appliance joins the
// restored one and serves the state.
func TestRackBackupRestore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts five rackbootd processes")
	}
	r := startRack(t, 3)
	leader, followers := rackRoles(t, r.daemons)
	const password = "Rack-BMC-pw-0e42"
	createBMH(t, followers[0], "node-1", password)
	ie := leader.createInfraEnv("last-before-backup")
	file := takeBackup(t, followers[1], t.TempDir(), "rack.backup")
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	meta, m, err := backup.Read(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.InfraEnv(ie); !ok {
		t.Errorf("the backup through a follower (%s) lacks the leader's last acknowledged write", meta.Node)
	}

	ports := freeTCPPorts(t, 2)
	m1 := newTestDaemon(t, ports[0], freePort(t, "udp"))
	m1.writeConfig(r.memberConfig(m1, "m1", ports[1], ""))
	for want, f := range damaged(t, file) {
		restoreRefused(t, m1, f, want)
	}
	if _, stderr, code := runBinary(t, m1.dir, "restore", "--config", "rackboot.toml", file); code != 0 {
		t.Fatalf("restore into a rack member: exit %d: %s", code, stderr)
	}
	if _, pw := offlineState(t, filepath.Join(m1.dir, "state"), filepath.Join(r.caDir, "secrets.key"), "node-1-bmc"); pw != password {
		t.Error("the restored BMC password differs")
	}
	m1.start(nil)
	m1.waitNote("READY=1")
	m2 := r.addMember(m1, "m2")
	for _, d := range []*testDaemon{m1, m2} {
		if code, b := d.admin("GET", "/api/assisted-install/v2/infra-envs/"+ie, nil); code != http.StatusOK {
			t.Errorf("the restored infra-env on %s: %d %s", d.httpAddr, code, b)
		}
	}
	if ids := clusterMembers(t, m2); len(ids) != 2 {
		t.Errorf("the restored rack's members: %v", ids)
	}
	m2.createInfraEnv("written-after-restore")
}

// A rack of three loses two appliances for good (kill -9). The survivor,
// stopped, recovered with rackbootd recover and started, is a one-voter
// rack holding the whole state that accepts writes; a new appliance added
// with rackbootctl cluster join replicates it.
func TestRackRecoverSurvivor(t *testing.T) {
	if testing.Short() {
		t.Skip("starts four rackbootd processes")
	}
	r := startRack(t, 3)
	leader, followers := rackRoles(t, r.daemons)
	ie := leader.createInfraEnv("before-the-loss")
	createBMH(t, leader, "node-1", "Recover-BMC-pw-77d0")
	survivor := followers[0]
	pollUntil(t, func() (bool, string) {
		code, b := survivor.admin("GET", "/api/assisted-install/v2/infra-envs/"+ie, nil)
		code2, b2 := survivor.admin("GET", "/api/assisted-install/v2/baremetal-hosts/node-1", nil)
		return code == 200 && code2 == 200, string(b) + string(b2)
	})
	killHard(t, leader)
	killHard(t, followers[1])
	out, code := ctl(t, "--url", "http://"+survivor.httpAddr, "--token", survivor.adminToken(), "backup", filepath.Join(t.TempDir(), "stale.backup"))
	if code != 1 || !strings.Contains(out, "503") || !strings.Contains(out, "no consistent state") {
		t.Errorf("a backup without a majority: exit %d: %s", code, out)
	}
	t.Logf("a backup without a majority: %s", out)
	survivor.stop()

	out, stderr, code := runBinary(t, survivor.dir, "recover", "--config", "rackboot.toml")
	if code != 0 || !strings.Contains(out, "only voter") {
		t.Fatalf("recover: exit %d: %s%s", code, out, stderr)
	}
	survivor.start(nil)
	survivor.waitNote("READY=1")
	if ids := clusterMembers(t, survivor); len(ids) != 1 {
		t.Errorf("members after recovery: %v", ids)
	}
	for _, path := range []string{"/infra-envs/" + ie, "/baremetal-hosts/node-1"} {
		if code, b := survivor.admin("GET", "/api/assisted-install/v2"+path, nil); code != http.StatusOK {
			t.Errorf("%s after recovery: %d %s", path, code, b)
		}
	}
	after := survivor.createInfraEnv("after-recovery")

	n4 := r.addMember(survivor, "n4")
	for _, id := range []string{ie, after} {
		if code, b := n4.admin("GET", "/api/assisted-install/v2/infra-envs/"+id, nil); code != http.StatusOK {
			t.Errorf("infra-env %s on the new member: %d %s", id, code, b)
		}
	}
	if ids := clusterMembers(t, n4); len(ids) != 2 {
		t.Errorf("members after the join: %v", ids)
	}
	n4.createInfraEnv("through-the-new-member")
}
