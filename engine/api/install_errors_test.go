package api

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v35 "github.com/coreos/ignition/v2/config/v3_5"

	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// startedRack is a ready rack whose installation started and whose hosts
// are installing.
func startedRack(t *testing.T, e *env, masters, workers int) *rack {
	t.Helper()
	rk := readyRack(t, e, masters, workers)
	e.must(adminCred(), 202, "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil)
	rk.waitCluster(engine.ClusterStatusInstalling)
	return rk
}

// An installation that takes longer than the timeout puts the cluster and
// its unfinished hosts in error with the reason.
func TestInstallTimeout(t *testing.T) {
	e := newMemEnv(t)
	var skew atomic.Int64
	runController(t, e, fakeGenerator{}, 20*time.Minute, func() time.Time {
		return time.Now().Add(time.Duration(skew.Load()))
	})
	rk := startedRack(t, e, 1, 0)
	a := rk.agents[0]
	args := rk.takeInstallStep(a)
	rk.ignition(a, args)
	rk.progress(a.agent, a, models.HostStageWritingImageToDisk, "10%")
	skew.Store(int64(21 * time.Minute))
	c := rk.waitCluster(engine.ClusterStatusError)
	if !strings.Contains(c.StatusInfo, "Timeout") || !strings.Contains(c.StatusInfo, "20m0s") {
		t.Errorf("cluster status_info %q", c.StatusInfo)
	}
	if h := a.host(); h.Status != models.HostStatusError || !strings.Contains(h.StatusInfo, "Writing image to disk") {
		t.Errorf("host %q (%s)", h.Status, h.StatusInfo)
	}
	// Progress after the error is refused.
	e.wantError(e.do(a.agent, "PUT", a.path()+"/progress", models.HostProgress{CurrentStage: models.HostStageRebooting}), 409, "error")
}

// A host reporting Failed puts it and its cluster in error with the reason.
func TestInstallHostFailure(t *testing.T) {
	e := newMemEnv(t)
	runController(t, e, fakeGenerator{}, 0, nil)
	rk := startedRack(t, e, 3, 1)
	a := rk.agents[3]
	rk.takeInstallStep(a)
	rk.progress(a.agent, a, models.HostStageWritingImageToDisk, "")
	rk.progress(a.agent, a, models.HostStageFailed, "image sha256 mismatch: got 00ff, want ab12")
	h := a.host()
	if h.Status != models.HostStatusError || !strings.Contains(h.StatusInfo, "sha256 mismatch") {
		t.Errorf("host %q (%s)", h.Status, h.StatusInfo)
	}
	c := rk.get()
	if c.Status != engine.ClusterStatusError || !strings.Contains(c.StatusInfo, "sha256 mismatch") {
		t.Errorf("cluster %q (%s)", c.Status, c.StatusInfo)
	}
	var evs []models.Event
	e.must(adminCred(), 200, "GET", "/events?host_id="+a.id, nil).decode(t, &evs)
	failed := false
	for _, ev := range evs {
		failed = failed || ev.Severity == "error" && strings.Contains(ev.Message, "Failed")
	}
	if !failed {
		t.Errorf("no error event of the failure")
	}
}

// Cancel, then reset: hosts whose disk was written must be booted into
// discovery by hand, the others re-register; the cluster is ready again
// once they are back, and installs again.
func TestInstallCancelAndReset(t *testing.T) {
	e := newMemEnv(t)
	runController(t, e, fakeGenerator{}, 0, nil)
	rk := readyRack(t, e, 3, 0)
	id := rk.cluster.ID
	e.wantError(e.do(adminCred(), "POST", "/clusters/"+id+"/actions/reset", nil), 409, "cannot be reset")
	e.wantError(e.do(adminCred(), "POST", "/clusters/"+id+"/actions/cancel", nil), 409, "cannot be cancelled")
	e.must(adminCred(), 202, "POST", "/clusters/"+id+"/actions/install", nil)
	rk.waitCluster(engine.ClusterStatusInstalling)
	a := rk.agents[0]
	rk.takeInstallStep(a)
	rk.progress(a.agent, a, models.HostStageRebooting, "")
	e.must(adminCred(), 202, "POST", "/clusters/"+id+"/actions/cancel", nil)
	if c := rk.get(); c.Status != engine.ClusterStatusCancelled {
		t.Fatalf("cluster %q after cancel", c.Status)
	}
	for _, ag := range rk.agents {
		if h := ag.host(); h.Status != models.HostStatusCancelled {
			t.Errorf("host %s %q after cancel", ag.id, h.Status)
		}
	}
	e.wantError(e.do(adminCred(), "POST", "/clusters/"+id+"/actions/cancel", nil), 409, "cannot be cancelled")
	e.must(adminCred(), 202, "POST", "/clusters/"+id+"/actions/reset", nil)
	if h := a.host(); h.Status != models.HostStatusResettingPendingUserAction || h.Progress.CurrentStage != "" {
		t.Errorf("written host %q stage %q after reset", h.Status, h.Progress.CurrentStage)
	}
	for _, ag := range rk.agents[1:] {
		if h := ag.host(); h.Status != models.HostStatusResetting {
			t.Errorf("host %s %q after reset", ag.id, h.Status)
		}
		var st models.Steps
		e.must(ag.agent, 200, "GET", ag.path()+"/instructions", nil).decode(t, &st)
		if st.PostStepAction != models.PostStepActionExit {
			t.Errorf("a resetting host's agent is not told to re-register: %+v", st)
		}
	}
	e.wantError(e.do(adminCred(), "GET", "/clusters/"+id+"/downloads/files?file_name=master.ign", nil), 409, "no install artifacts")
	// Every host boots discovery again and registers.
	for _, ag := range rk.agents {
		e.must(ag.agent, 201, "POST", "/infra-envs/"+rk.ie.ID+"/hosts", models.HostCreateParams{HostID: ag.id})
	}
	rk.discover()
	rk.waitCluster(engine.ClusterStatusReady)
	e.must(adminCred(), 202, "POST", "/clusters/"+id+"/actions/install", nil)
	rk.installAll()
	rk.waitCluster(engine.ClusterStatusInstalled)
}

// A host that boots discovery again mid-install is reported, not
// restarted: installing-pending-user-action, with its cluster.
func TestInstallHostBackInDiscovery(t *testing.T) {
	e := newMemEnv(t)
	runController(t, e, fakeGenerator{}, 0, nil)
	rk := startedRack(t, e, 1, 0)
	a := rk.agents[0]
	_, token, _ := rk.ignition(a, rk.takeInstallStep(a))
	rk.progress(a.agent, a, models.HostStageRebooting, "")
	e.must(a.agent, 201, "POST", "/infra-envs/"+rk.ie.ID+"/hosts", models.HostCreateParams{HostID: a.id})
	h := a.host()
	if h.Status != models.HostStatusInstallingPendingUserAction || !strings.Contains(h.StatusInfo, "boot order") ||
		h.Progress.CurrentStage != models.HostStageRebooting {
		t.Errorf("host %q (%s) stage %q", h.Status, h.StatusInfo, h.Progress.CurrentStage)
	}
	rk.waitCluster(engine.ClusterStatusInstallingPendingUserAction)
	var evs []models.Event
	e.must(adminCred(), 200, "GET", "/events?host_id="+a.id, nil).decode(t, &evs)
	found := false
	for _, ev := range evs {
		found = found || ev.Name == "host_registered_during_installation" && ev.Severity == "warning"
	}
	if !found {
		t.Error("no event of the host booting discovery")
	}
	// The user fixes the boot order; the first boot reports Done.
	rk.progress(cred{agent: token}, a, models.HostStageDone, "")
	rk.waitCluster(engine.ClusterStatusInstalled)
}

// The host-scoped token reports its own host's progress and opens nothing
// else; an agent token of another infra-env cannot either.
func TestHostTokenScope(t *testing.T) {
	e := newMemEnv(t)
	runController(t, e, fakeGenerator{}, 0, nil)
	rk := startedRack(t, e, 3, 0)
	a, b := rk.agents[0], rk.agents[1]
	_, token, _ := rk.ignition(a, rk.takeInstallStep(a))
	rk.takeInstallStep(b)
	host := cred{agent: token}
	rk.progress(host, a, models.HostStageInstalling, "")
	e.wantInfraError(e.do(host, "PUT", b.path()+"/progress", models.HostProgress{CurrentStage: models.HostStageInstalling}), 403, "")
	for _, rq := range []struct{ method, path string }{
		{"GET", a.path()}, {"GET", a.path() + "/instructions"}, {"GET", a.path() + "/downloads/ignition"},
		{"GET", "/infra-envs/" + rk.ie.ID}, {"GET", "/infra-envs/" + rk.ie.ID + "/hosts"},
		{"GET", "/infra-envs/" + rk.ie.ID + "/downloads/files?file_name=discovery.ign"},
		{"GET", "/clusters/" + rk.cluster.ID}, {"GET", "/clusters/" + rk.cluster.ID + "/downloads/credentials?file_name=kubeconfig"},
		{"POST", "/infra-envs/" + rk.ie.ID + "/hosts"}, {"GET", "/events"},
	} {
		if r := e.do(host, rq.method, rq.path, `{}`); r.code != 401 && r.code != 403 {
			t.Errorf("host token on %s %s: %d %s", rq.method, rq.path, r.code, r.body)
		}
	}
	// As a bearer token it is no admin either.
	if r := e.do(cred{bearer: token}, "GET", "/clusters", nil); r.code != 401 && r.code != 403 {
		t.Errorf("host token as bearer: %d", r.code)
	}
	other := e.createInfraEnv("")
	otherAgent := cred{agent: e.agentConfig(other.ID).Token}
	e.wantInfraError(e.do(otherAgent, "PUT", a.path()+"/progress", models.HostProgress{CurrentStage: models.HostStageWritingImageToDisk}), 403, "")
	if h := a.host(); h.Progress.CurrentStage != models.HostStageInstalling {
		t.Errorf("refused reports changed the stage to %q", h.Progress.CurrentStage)
	}
}

// Bad input: an invalid Ignition override or an unknown disk is a 400
// that changes nothing; bad progress bodies too.
func TestInstallBadInput(t *testing.T) {
	e := newMemEnv(t)
	runController(t, e, fakeGenerator{}, 0, nil)
	rk := readyRack(t, e, 1, 0)
	a := rk.agents[0]
	for _, bad := range []string{`{"ignition":{"version":"9.9.9"}}`, `not json`, `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"relative"}]}}`} {
		e.wantError(e.do(adminCred(), "PATCH", a.path(), map[string]any{"ignition_config_overrides": bad}), 400, "ignition_config_overrides")
	}
	e.wantError(e.do(adminCred(), "PATCH", a.path(), map[string]any{"disks_selected_config": []map[string]string{
		{"id": "/dev/disk/by-id/nope", "role": "install"}}}), 400, "has no disk")
	e.wantError(e.do(adminCred(), "PATCH", a.path()+"/ignition", models.HostIgnitionParams{Config: `{"ignition":{}}`}), 400, "ignition_config_overrides")
	good := `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/extra","contents":{"source":"data:,x"}}]}}`
	e.must(adminCred(), 201, "PATCH", a.path()+"/ignition", models.HostIgnitionParams{Config: good})
	if h := a.host(); h.IgnitionConfigOverrides != good {
		t.Errorf("override set through .../ignition: %q", h.IgnitionConfigOverrides)
	}
	e.must(adminCred(), 201, "PATCH", a.path(), map[string]any{"ignition_config_overrides": good})
	if h := a.host(); h.IgnitionConfigOverrides != good {
		t.Errorf("override %q", h.IgnitionConfigOverrides)
	}
	e.must(adminCred(), 202, "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil)
	rk.waitCluster(engine.ClusterStatusInstalling)
	args := rk.takeInstallStep(a)
	cfg, _, _ := rk.ignition(a, args)
	if !strings.Contains(cfg, "/etc/extra") {
		t.Error("the override is not in the install Ignition")
	}
	for _, body := range []any{`{"current_stage":"Sleeping"}`, `{"current_stage":"Done","progress_info":"a\u0000b"}`, `[]`, ``} {
		e.wantError(e.do(a.agent, "PUT", a.path()+"/progress", body), 400, "")
	}
	rk.progress(a.agent, a, models.HostStageRebooting, "")
	e.wantError(e.do(a.agent, "PUT", a.path()+"/progress", models.HostProgress{CurrentStage: models.HostStageInstalling}), 400, "cannot go back")
}

// Manifests and install-config overrides: stored, listed, validated,
// frozen once installing; the generator sees them.
func TestManifestsAndInstallConfig(t *testing.T) {
	e := newMemEnv(t)
	gen := &recordingGenerator{}
	runController(t, e, gen, 0, nil)
	rk := readyRack(t, e, 1, 0)
	id := rk.cluster.ID
	mf := base64.StdEncoding.EncodeToString([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"))
	e.must(adminCred(), 201, "POST", "/clusters/"+id+"/manifests", map[string]any{"file_name": "50-x.yaml", "content": mf})
	e.must(adminCred(), 201, "POST", "/clusters/"+id+"/manifests", map[string]any{"folder": "openshift", "file_name": "y.yml", "content": mf})
	for _, bad := range []map[string]any{{"file_name": "../x.yaml", "content": mf}, {"file_name": "x.txt", "content": mf},
		{"file_name": "x.yaml", "content": "!!"}, {"folder": "etc", "file_name": "x.yaml", "content": mf},
		{"file_name": "x.json", "content": mf}} {
		e.wantError(e.do(adminCred(), "POST", "/clusters/"+id+"/manifests", bad), 400, "")
	}
	var list []models.Manifest
	e.must(adminCred(), 200, "GET", "/clusters/"+id+"/manifests", nil).decode(t, &list)
	if len(list) != 2 || list[0] != (models.Manifest{FileName: "50-x.yaml", Folder: "manifests"}) {
		t.Errorf("manifests %+v", list)
	}
	e.must(adminCred(), 200, "DELETE", "/clusters/"+id+"/manifests?folder=openshift&file_name=y.yml", nil)
	e.wantError(e.do(adminCred(), "DELETE", "/clusters/"+id+"/manifests?file_name=nope.yaml", nil), 404, "")

	e.wantError(e.do(adminCred(), "PATCH", "/clusters/"+id+"/install-config", `"not json"`), 400, "not a JSON object")
	e.wantError(e.do(adminCred(), "PATCH", "/clusters/"+id+"/install-config", `{"fips":true}`), 400, "")
	e.must(adminCred(), 201, "PATCH", "/clusters/"+id+"/install-config", `"{\"fips\":true}"`)
	var ic string
	e.must(adminCred(), 200, "GET", "/clusters/"+id+"/install-config", nil).decode(t, &ic)
	if !strings.Contains(ic, "fips: true") || !strings.Contains(ic, "baseDomain: example.com") || strings.Contains(ic, "c2VjcmV0") {
		t.Errorf("install-config:\n%s", ic)
	}
	e.must(adminCred(), 202, "POST", "/clusters/"+id+"/actions/install", nil)
	rk.waitCluster(engine.ClusterStatusInstalling)
	got := gen.last.Load()
	if got == nil || len(got.Manifests) != 1 || got.Manifests[0].FileName != "50-x.yaml" || got.InstallConfigOverrides != `{"fips":true}` {
		t.Errorf("generator input %+v", got)
	}
	e.wantError(e.do(adminCred(), "POST", "/clusters/"+id+"/manifests", map[string]any{"file_name": "z.yaml", "content": mf}), 409, "installing")
	e.wantError(e.do(adminCred(), "PATCH", "/clusters/"+id+"/install-config", `"{}"`), 409, "installing")
}

// A generator failure puts the cluster in error with the reason and its
// hosts in preparing-failed; reset brings it back.
func TestInstallPrepareFails(t *testing.T) {
	e := newMemEnv(t)
	runController(t, e, fakeGenerator{fail: errors.New("openshift-install: exit status 1: bad release")}, 0, nil)
	rk := readyRack(t, e, 1, 0)
	e.must(adminCred(), 202, "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil)
	c := rk.waitCluster(engine.ClusterStatusError)
	if !strings.Contains(c.StatusInfo, "bad release") {
		t.Errorf("cluster status_info %q", c.StatusInfo)
	}
	if h := rk.agents[0].host(); h.Status != models.HostStatusPreparingFailed {
		t.Errorf("host %q", h.Status)
	}
	e.must(adminCred(), 202, "POST", "/clusters/"+rk.cluster.ID+"/actions/reset", nil)
	if h := rk.agents[0].host(); h.Status != models.HostStatusResetting {
		t.Errorf("host after reset %q", h.Status)
	}
}

// recordingGenerator is fakeGenerator remembering its last input.
type recordingGenerator struct {
	last atomic.Pointer[installer.Cluster]
}

func (g *recordingGenerator) Generate(ctx context.Context, c installer.Cluster) (*installer.Artifacts, error) {
	g.last.Store(&c)
	return fakeGenerator{}.Generate(ctx, c)
}

// A host whose agent registers again before the disk was written restarted
// mid-install: it goes to error and takes its cluster with it.
func TestInstallHostRestarted(t *testing.T) {
	e := newMemEnv(t)
	runController(t, e, fakeGenerator{}, 0, nil)
	rk := startedRack(t, e, 1, 0)
	a := rk.agents[0]
	rk.takeInstallStep(a)
	rk.progress(a.agent, a, models.HostStageWritingImageToDisk, "12%")
	e.must(a.agent, 201, "POST", "/infra-envs/"+rk.ie.ID+"/hosts", models.HostCreateParams{HostID: a.id})
	if h := a.host(); h.Status != models.HostStatusError || !strings.Contains(h.StatusInfo, "unexpectedly restarted") {
		t.Errorf("host %q (%s)", h.Status, h.StatusInfo)
	}
	if c := rk.waitCluster(engine.ClusterStatusError); !strings.Contains(c.StatusInfo, "unexpectedly restarted") {
		t.Errorf("cluster status_info %q", c.StatusInfo)
	}
}

// The install Ignition carries the keyfiles of the static network config
// listing one of the host's MACs, mode 0600; a host no config lists gets
// none.
func TestInstallIgnitionStaticNetwork(t *testing.T) {
	e := newMemEnv(t)
	runController(t, e, fakeGenerator{}, 0, nil)
	rk := readyRack(t, e, 1, 0)
	cfg := []map[string]any{{"network_yaml": staticYAML,
		"mac_interface_map": []map[string]string{{"mac_address": "52:54:00:77:00:01", "logical_nic_name": "eth0"}}}}
	e.must(adminCred(), 201, "PATCH", "/infra-envs/"+rk.ie.ID, map[string]any{"static_network_config": cfg})
	e.must(adminCred(), 202, "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil)
	rk.waitCluster(engine.ClusterStatusInstalling)
	a := rk.agents[0]
	raw, _, _ := rk.ignition(a, rk.takeInstallStep(a))
	c, _, err := v35.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range c.Storage.Files {
		if f.Path == "/etc/NetworkManager/system-connections/eth0.nmconnection" {
			found = true
			if f.Mode == nil || *f.Mode != 0o600 || f.Contents.Source == nil || !strings.Contains(*f.Contents.Source, "192.168.111.30") {
				t.Errorf("keyfile %+v", f)
			}
		}
	}
	if !found {
		t.Error("no keyfile in the install Ignition")
	}
}

// complete-installation reports a finalizing cluster installed or failed.
func TestCompleteInstallation(t *testing.T) {
	e := newMemEnv(t)
	rk := readyRack(t, e, 1, 0) // no controller: the test moves the cluster
	id := rk.cluster.ID
	path := "/clusters/" + id + "/actions/complete-installation"
	e.wantError(e.do(adminCred(), "POST", path, map[string]any{"is_success": true}), 409, "not finalizing")
	e.must(adminCred(), 202, "POST", "/clusters/"+id+"/actions/install", nil)
	if _, err := e.store.Apply(t.Context(), &engine.InstallTransition{ClusterID: id,
		Cluster: &engine.StatusChange{Status: engine.ClusterStatusFinalizing}}); err != nil {
		t.Fatal(err)
	}
	e.wantError(e.do(adminCred(), "POST", path, map[string]any{}), 400, "is_success")
	e.wantError(e.do(adminCred(), "POST", path, map[string]any{"is_success": false, "error_info": "a\x00"}), 400, "error_info")
	var c models.Cluster
	e.must(adminCred(), 202, "POST", path, map[string]any{"is_success": false, "error_info": "console unreachable"}).decode(t, &c)
	if c.Status != engine.ClusterStatusError || !strings.Contains(c.StatusInfo, "console unreachable") {
		t.Errorf("cluster %q (%s)", c.Status, c.StatusInfo)
	}
}
