package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	v35 "github.com/coreos/ignition/v2/config/v3_5"

	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/protocol"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/clusters"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/install"
	"github.com/rackboot/rackboot/engine/models"
)

const (
	testKubeconfig = "apiVersion: v1\nkind: Config\nclusters: []\n"
	testKubePass   = "kubeadmin-Pass-1234"
)

// fakeGenerator makes minimal role configs, credentials and the real
// install-config and metadata.
type fakeGenerator struct{ fail error }

func (f fakeGenerator) Generate(_ context.Context, c installer.Cluster) (*installer.Artifacts, error) {
	if f.fail != nil {
		return nil, f.fail
	}
	ic, err := installer.InstallConfig(c)
	if err != nil {
		return nil, err
	}
	md, err := installer.Metadata(c)
	if err != nil {
		return nil, err
	}
	role := func(r string) []byte {
		return fmt.Appendf(nil, `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/role","contents":{"source":"data:,%s"},"mode":420}]}}`, r)
	}
	return &installer.Artifacts{Bootstrap: role("bootstrap"), Master: role("master"), Worker: role("worker"),
		InstallConfig: ic, Metadata: md, Kubeconfig: []byte(testKubeconfig), KubeadminPassword: []byte(testKubePass)}, nil
}

// runController runs the install controller on e's store until the test
// ends.
func runController(t *testing.T, e *env, gen installer.Generator, timeout time.Duration, now func() time.Time) {
	t.Helper()
	startController(t, e, gen, install.Options{Timeout: timeout, Now: now})
}

// startController runs the install controller with o (its store, passes
// every 20 ms and generator gen filled in) until the test ends.
func startController(t *testing.T, e *env, gen installer.Generator, o install.Options) {
	t.Helper()
	o.Store, o.Interval = e.store, 20*time.Millisecond
	o.Generators = func(engine.ImageSet) (installer.Generator, error) { return gen, nil }
	c, err := install.NewController(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); c.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// runControllerCtx runs the install controller until ctx ends (under
// engine.WhileLeader).
func runControllerCtx(ctx context.Context, t *testing.T, e *env, gen installer.Generator) {
	c, err := install.NewController(install.Options{Store: e.store, Interval: 20 * time.Millisecond,
		Generators: func(engine.ImageSet) (installer.Generator, error) { return gen, nil }})
	if err != nil {
		t.Error(err)
		return
	}
	c.Run(ctx)
}

// waitFor is enginetest.WaitFor.
func waitFor(t *testing.T, s engine.Store, what string, cond func(m *engine.Model) bool) {
	t.Helper()
	enginetest.WaitFor(t, s, what, cond)
}

// waitCluster waits until the cluster is in status.
func (rk *rack) waitCluster(status string) models.Cluster {
	rk.t.Helper()
	waitFor(rk.t, rk.e.store, "cluster "+status, func(m *engine.Model) bool {
		c, _ := m.Cluster(rk.cluster.ID)
		return c.Status == status
	})
	return rk.get()
}

// readyRack is a rack whose cluster is ready: masters control-plane hosts
// and workers workers, discovered and approved.
func readyRack(t *testing.T, e *env, masters, workers int) *rack {
	t.Helper()
	rk := newRack(t, e, masters, masters+workers)
	rk.discover()
	var roles []string
	for i := range masters + workers {
		roles = append(roles, map[bool]string{true: "master", false: "worker"}[i < masters])
	}
	rk.approveAll(roles...)
	rk.discover()
	if c := rk.get(); c.Status != engine.ClusterStatusReady {
		t.Fatalf("cluster %q (%s): %s", c.Status, c.StatusInfo, c.ValidationsInfo)
	}
	return rk
}

// takeInstallStep polls until a's install step comes, checks its
// arguments and returns them; a second poll must not hand it again.
func (rk *rack) takeInstallStep(a *stepAgent) models.InstallStepArgs {
	rk.t.Helper()
	var step *models.Step
	for _, st := range a.pollWith(rk.connectivity) {
		if st.StepType == models.StepTypeInstall {
			step = st
		}
	}
	if step == nil || len(step.Args) != 1 || !strings.HasPrefix(step.StepID, "install-") {
		rk.t.Fatalf("host %s: no install step (%+v)", a.id, step)
	}
	for _, st := range a.pollWith(rk.connectivity) {
		if st.StepType == models.StepTypeInstall {
			rk.t.Errorf("host %s: install step handed out twice", a.id)
		}
	}
	var args models.InstallStepArgs
	if err := json.Unmarshal([]byte(step.Args[0]), &args); err != nil {
		rk.t.Fatal(err)
	}
	is := testImageSet()
	if args.HostID != a.id || args.InfraEnvID != rk.ie.ID || args.ClusterID != rk.cluster.ID ||
		args.ImageURL != "http://10.55.0.1:8080/images/testos-1/disk.img" || args.ImageSHA256 != is.DiskImage.SHA256 ||
		args.ImageSize != is.DiskImage.Size || args.BootDevice == "" || args.ExternalReboot ||
		args.IgnitionURL != rk.e.srv.URL+BasePath+"/infra-envs/"+rk.ie.ID+"/hosts/"+a.id+"/downloads/ignition" {
		rk.t.Errorf("install args %+v", args)
	}
	return args
}

// ignition downloads a's install Ignition and returns it with the
// first-boot token and progress URL it carries.
func (rk *rack) ignition(a *stepAgent, args models.InstallStepArgs) (cfg string, token, progressURL string) {
	rk.t.Helper()
	var p models.HostIgnitionParams
	rk.e.must(a.agent, 200, "GET", args.IgnitionURL, nil).decode(rk.t, &p)
	c, rpt, err := v35.Parse([]byte(p.Config))
	if err != nil {
		rk.t.Fatalf("install Ignition of %s: %v %s", a.id, err, rpt)
	}
	files := map[string]string{}
	for _, f := range c.Storage.Files {
		if f.Contents.Source != nil {
			data, _ := url.PathUnescape(strings.TrimPrefix(*f.Contents.Source, "data:,"))
			files[f.Path] = data
		}
	}
	if files["/etc/role"] == "" || !strings.HasPrefix(files[installer.HostnamePath], "node-") {
		rk.t.Errorf("host %s: role %q hostname %q", a.id, files["/etc/role"], files[installer.HostnamePath])
	}
	token = strings.TrimSpace(files[installer.FirstBootTokenPath])
	script := files[installer.FirstBootScript]
	i := strings.Index(script, "url='")
	if token == "" || i < 0 {
		rk.t.Fatalf("host %s: no first-boot token or script", a.id)
	}
	progressURL = script[i+5:]
	progressURL = progressURL[:strings.IndexByte(progressURL, '\'')]
	return p.Config, token, progressURL
}

// agentClient is rackboot-agent's protocol client of the rack's infra-env
// with token.
func (rk *rack) agentClient(token string) *protocol.Client {
	rk.t.Helper()
	c, err := protocol.New(protocol.Config{URL: rk.e.srv.URL, InfraEnvID: rk.ie.ID, Token: token, AgentVersion: "test"})
	if err != nil {
		rk.t.Fatal(err)
	}
	return c
}

// progress reports stage for a with c.
func (rk *rack) progress(c cred, a *stepAgent, stage models.HostStage, info string) {
	rk.t.Helper()
	rk.e.must(c, 200, "PUT", a.path()+"/progress", models.HostProgress{CurrentStage: stage, ProgressInfo: info})
}

// installAll drives every agent through its install: the step, the
// Ignition, the agent's stages up to Rebooting and the first boot's Done
// with the host-scoped token.
func (rk *rack) installAll() {
	rk.t.Helper()
	rk.waitCluster(engine.ClusterStatusInstalling)
	for _, a := range rk.agents {
		rk.installOne(a)
	}
}

func (rk *rack) installOne(a *stepAgent) {
	rk.t.Helper()
	args := rk.takeInstallStep(a)
	_, token, purl := rk.ignition(a, args)
	if purl != rk.e.srv.URL+BasePath+a.path()+"/progress" {
		rk.t.Errorf("first-boot progress URL %q", purl)
	}
	// The agent's own protocol client fetches the Ignition and reports.
	ctx := context.Background()
	client := rk.agentClient(a.agent.agent)
	if p, err := client.HostIgnition(ctx, args.IgnitionURL); err != nil || !strings.Contains(p.Config, installer.FirstBootUnit) {
		rk.t.Fatalf("agent client: host ignition: %v", err)
	}
	for _, st := range []models.HostProgress{{CurrentStage: models.HostStageStartingInstallation},
		{CurrentStage: models.HostStageInstalling}, {CurrentStage: models.HostStageWritingImageToDisk},
		{CurrentStage: models.HostStageWritingImageToDisk, ProgressInfo: "50%"}, {CurrentStage: models.HostStageRebooting}} {
		if err := client.PutProgress(ctx, a.id, st); err != nil {
			rk.t.Fatalf("agent client: progress %s: %v", st.CurrentStage, err)
		}
	}
	h := a.host()
	if h.Progress == nil || h.Progress.CurrentStage != models.HostStageRebooting || h.Progress.InstallationPercentage != 57 ||
		len(h.ProgressStages) != 7 {
		rk.t.Errorf("host %s progress %+v stages %v", a.id, h.Progress, h.ProgressStages)
	}
	if err := rk.agentClient(token).PutProgress(ctx, a.id, models.HostProgress{CurrentStage: models.HostStageDone}); err != nil {
		rk.t.Fatalf("first boot: progress Done: %v", err)
	}
	if h := a.host(); h.Status != models.HostStatusInstalled && h.Status != models.HostStatusAddedToExistingCluster ||
		h.Progress.InstallationPercentage != 100 {
		rk.t.Errorf("host %s after Done: %q %+v", a.id, h.Status, h.Progress)
	}
}

// checkInstalled checks an installed cluster: credentials and files
// downloadable, events of every stage.
func (rk *rack) checkInstalled() {
	t, e, id := rk.t, rk.e, rk.cluster.ID
	c := rk.waitCluster(engine.ClusterStatusInstalled)
	if c.InstallCompletedAt.IsZero() || c.Progress == nil || c.Progress.TotalPercentage != 100 {
		t.Errorf("installed cluster: completed %v progress %+v", c.InstallCompletedAt, c.Progress)
	}
	if r := e.must(adminCred(), 200, "GET", "/clusters/"+id+"/downloads/credentials?file_name=kubeconfig", nil); string(r.body) != testKubeconfig {
		t.Errorf("kubeconfig %q", r.body)
	}
	var cr models.Credentials
	e.must(adminCred(), 200, "GET", "/clusters/"+id+"/credentials", nil).decode(t, &cr)
	if cr.Username != "kubeadmin" || cr.Password != testKubePass || cr.ConsoleURL != "https://console-openshift-console.apps.rack7.example.com" {
		t.Errorf("credentials %+v", cr)
	}
	for _, f := range clusters.ClusterFiles() {
		if r := e.must(adminCred(), 200, "GET", "/clusters/"+id+"/downloads/files?file_name="+f, nil); len(r.body) == 0 {
			t.Errorf("%s is empty", f)
		}
	}
	e.wantError(e.do(adminCred(), "GET", "/clusters/"+id+"/downloads/files?file_name=../../etc/passwd", nil), 400, "file_name")
	// The controller records the event right after the move: wait for it.
	waitFor(t, e.store, "the completion event", func(m *engine.Model) bool {
		for ev := range m.Events(0) {
			if ev.ClusterID == id && ev.Name == "cluster_installation_completed" {
				return true
			}
		}
		return false
	})
	var evs []models.Event
	e.must(adminCred(), 200, "GET", "/events?cluster_id="+id, nil).decode(t, &evs)
	stages := map[string]int{}
	var statuses []string
	for _, ev := range evs {
		if ev.Name == "host_install_progress_updated" {
			stages[ev.HostID]++
		}
		if ev.Name == "cluster_status_updated" {
			statuses = append(statuses, ev.Message)
		}
	}
	for _, a := range rk.agents {
		if stages[a.id] != 5 { // Starting, Installing, Writing, Rebooting, Done
			t.Errorf("host %s: %d stage events, want 5", a.id, stages[a.id])
		}
	}
	for _, want := range []string{"installing", "finalizing", "installed"} {
		if !slices.ContainsFunc(statuses, func(m string) bool { return strings.Contains(m, "to "+want+" ") }) {
			t.Errorf("no event of the cluster going %s among %q", want, statuses)
		}
	}
	if strings.Contains(e.logs.String(), testKubePass) || strings.Contains(e.logs.String(), "c2VjcmV0LXB1bGwtc2VjcmV0") {
		t.Errorf("a secret reached the log")
	}
}

// Single node, through the agent protocol: installed, credentials
// downloadable.
func TestInstallFlowSNO(t *testing.T) {
	e := newMemEnv(t)
	runController(t, e, fakeGenerator{}, 0, nil)
	rk := readyRack(t, e, 1, 0)
	e.must(adminCred(), 202, "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil)
	rk.installAll()
	rk.checkInstalled()
	if h := rk.agents[0].host(); !h.Bootstrap || h.Role != models.HostRoleMaster {
		t.Errorf("SNO host bootstrap %t role %q", h.Bootstrap, h.Role)
	}
}

// Three control-plane hosts and a worker; then a day-2 worker from the
// same infra-env.
func TestInstallFlowThreePlusOneAndDay2(t *testing.T) {
	e := newMemEnv(t)
	runController(t, e, fakeGenerator{}, 0, nil)
	rk := readyRack(t, e, 3, 1)
	e.must(adminCred(), 202, "POST", "/clusters/"+rk.cluster.ID+"/actions/install", nil)
	rk.waitCluster(engine.ClusterStatusInstalling)
	var boot []string
	for _, a := range rk.agents {
		if a.host().Bootstrap {
			boot = append(boot, a.id)
		}
	}
	if len(boot) != 1 || boot[0] != rk.agents[0].id {
		t.Errorf("bootstrap hosts %v, want the first master (all reach everyone; lowest id)", boot)
	}
	rk.installAll()
	rk.checkInstalled()

	// Day 2.
	id := rk.cluster.ID
	e.must(adminCred(), 202, "POST", "/clusters/"+id+"/actions/allow-add-workers", nil)
	e.wantError(e.do(adminCred(), "POST", "/clusters/"+id+"/actions/allow-add-workers", nil), 409, "not installed")
	day2 := rk.add(5)
	rk.discover()
	e.wantError(e.do(adminCred(), "POST", rk.agents[0].path()+"/actions/install", nil), 409, "not known")
	if h := day2.host(); h.Status != models.HostStatusKnown {
		t.Fatalf("day-2 host is %q (%s)", h.Status, h.StatusInfo)
	}
	e.wantError(e.do(adminCred(), "POST", day2.path()+"/actions/install", nil), 409, "not approved")
	e.must(adminCred(), 201, "PATCH", day2.path(), map[string]any{"approved": true})
	e.must(adminCred(), 202, "POST", day2.path()+"/actions/install", nil)
	rk.installOne(day2)
	if h := day2.host(); h.Status != models.HostStatusAddedToExistingCluster || h.Kind != models.HostKindAddToExistingClusterHost {
		t.Errorf("day-2 host %q kind %q", h.Status, h.Kind)
	}
	if c := rk.get(); c.Status != engine.ClusterStatusAddingHosts {
		t.Errorf("cluster %q after day 2", c.Status)
	}
}
