package console_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	v35 "github.com/coreos/ignition/v2/config/v3_5"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/protocol"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/steps"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/api"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/console"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/install"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

const (
	testAdmin      = "admin-token-0123456789abcdef0123456789abcdef"
	testPullSecret = `{"auths":{"quay.io":{"auth":"c2VjcmV0LXB1bGwtc2VjcmV0LXZhbHVl"}}}`
	testKubeconfig = "apiVersion: v1\nkind: Config\nclusters: []\n"
	// xssName is the hostname an agent reports to try script injection.
	xssName = `<script>window.pwned=1</script><img src=x onerror="window.pwned=2">`
)

// bed is rackbootd's HTTP surface as the console tests need it: the real
// API over an in-memory store, the console, the install controller with
// a generator that makes minimal artifacts, on a loopback server.
type bed struct {
	t     *testing.T
	store engine.Store
	srv   *httptest.Server
}

func newBed(t *testing.T) *bed {
	t.Helper()
	store := enginetest.NewStore()
	keys := auth.NewKeyRing()
	if _, err := keys.Generate(); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	// Requests' contexts end before Close waits for them: the console's
	// live streams last as long as the browser.
	base, cancel := context.WithCancel(context.Background())
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.BaseContext = func(net.Listener) context.Context { return base }
	srv.Start()
	t.Cleanup(func() { cancel(); srv.Close() })
	small, err := validation.DefaultThresholds().Override(validation.Thresholds{Profile: "test-vms",
		Worker: validation.Requirements{CPUCores: 1, MemoryMiB: 1024, DiskGB: 10},
		Master: validation.Requirements{CPUCores: 1, MemoryMiB: 1024, DiskGB: 10}})
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := engine.NewSealer(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	h, err := api.New(api.Options{Store: store, AdminToken: testAdmin, Keys: keys, ServiceURL: srv.URL, Sealer: sealer,
		Thresholds: func(*engine.Model, string) validation.Thresholds { return small }})
	if err != nil {
		t.Fatal(err)
	}
	c, err := console.New(console.Options{API: h, AdminToken: testAdmin, Store: store, LoopbackOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle(api.BasePath+"/", h)
	mux.Handle(console.Prefix, c)
	b := &bed{t: t, store: store, srv: srv}
	b.runController()
	return b
}

// runController runs the install controller until the test ends.
func (b *bed) runController() {
	ctl, err := install.NewController(install.Options{Store: b.store, Interval: 20 * time.Millisecond,
		Generators: func(engine.ImageSet) (installer.Generator, error) { return fakeGenerator{}, nil }})
	if err != nil {
		b.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); ctl.Run(ctx) }()
	b.t.Cleanup(func() { cancel(); <-done })
}

// fakeGenerator makes minimal role configs and credentials, and the real
// install-config.
type fakeGenerator struct{}

func (fakeGenerator) Generate(_ context.Context, c installer.Cluster) (*installer.Artifacts, error) {
	ic, err := installer.InstallConfig(c)
	if err != nil {
		return nil, err
	}
	md, err := installer.Metadata(c)
	if err != nil {
		return nil, err
	}
	role := []byte(`{"ignition":{"version":"3.4.0"}}`)
	return &installer.Artifacts{Bootstrap: role, Master: role, Worker: role, InstallConfig: ic, Metadata: md,
		Kubeconfig: []byte(testKubeconfig), KubeadminPassword: []byte("kubeadmin-Pass-1234")}, nil
}

// admin sends an admin API request and decodes a 2xx answer into out.
func (b *bed) admin(method, path string, in, out any) {
	b.t.Helper()
	var body *strings.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			b.t.Fatal(err)
		}
		body = strings.NewReader(string(data))
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequest(method, b.srv.URL+api.BasePath+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testAdmin)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		var e map[string]any
		_ = json.NewDecoder(res.Body).Decode(&e)
		b.t.Fatalf("%s %s: %d %v", method, path, res.StatusCode, e)
	}
	if out != nil {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			b.t.Fatal(err)
		}
	}
}

// sno creates the image set, a single-node cluster on 10.55.0.0/16 and
// its infra-env, and returns their ids.
func (b *bed) sno() (cluster, ie string) {
	b.t.Helper()
	small := engine.Minimums{CPUCores: 1, MemoryMiB: 1024, DiskGB: 10}
	if _, err := b.store.Apply(context.Background(), &engine.PutImageSet{ImageSet: engine.ImageSet{Name: "testos-1",
		Version: "4.17.0", CPUArchitecture: "x86_64", Profile: "testos",
		DiskImage:  engine.DiskImage{Path: "/var/lib/rackboot/disk.img", SHA256: "ab12", Size: 4096},
		Thresholds: &engine.Thresholds{Profile: "test-vms", Master: small, Worker: small, SingleNode: small}}}); err != nil {
		b.t.Fatal(err)
	}
	var c models.Cluster
	b.admin("POST", "/clusters", map[string]any{"name": "edge1", "openshift_version": "4.17",
		"pull_secret": testPullSecret, "base_dns_domain": "example.com", "high_availability_mode": "None",
		"machine_networks": []map[string]string{{"cidr": "10.55.0.0/16"}},
		"cluster_networks": []map[string]any{{"cidr": "10.128.0.0/14", "host_prefix": 23}},
		"service_networks": []map[string]string{{"cidr": "172.30.0.0/16"}}}, &c)
	return c.ID, b.infraEnv("edge1", c.ID)
}

// infraEnv creates an infra-env (bound to cluster unless "").
func (b *bed) infraEnv(name, cluster string) string {
	b.t.Helper()
	body := map[string]any{"name": name, "pull_secret": testPullSecret}
	if cluster != "" {
		body["cluster_id"] = cluster
	}
	var ie models.InfraEnv
	b.admin("POST", "/infra-envs", body, &ie)
	return ie.ID
}

// agent is one simulated discovered host: rackboot-agent's protocol
// client and step executors with the golden inventory of a QEMU VM.
type agent struct {
	b      *bed
	id     string
	client *protocol.Client
	runner *steps.Runner
}

// errNoDNS: the test resolver has no server (no DNS traffic leaves).
var errNoDNS = errors.New("test: no DNS server")

// newAgent registers host id in infra-env ie with hostname name, the
// way the agent does: with the token of the infra-env's discovery.ign.
func (b *bed) newAgent(ie, id, name string) *agent {
	b.t.Helper()
	raw, err := os.ReadFile("../../cmd/rackboot-agent/inventory/testdata/qemu-bios.json")
	if err != nil {
		b.t.Fatal(err)
	}
	var inv models.Inventory
	if err := json.Unmarshal(raw, &inv); err != nil {
		b.t.Fatal(err)
	}
	inv.Hostname = name
	client, err := protocol.New(protocol.Config{URL: b.srv.URL, InfraEnvID: ie, Token: b.agentToken(ie), AgentVersion: "test"})
	if err != nil {
		b.t.Fatal(err)
	}
	a := &agent{b: b, id: id, client: client, runner: steps.NewRunner(steps.Deps{
		Inventory: func(context.Context) (*models.Inventory, error) { c := inv; return &c, nil },
		Resolver: &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
			return nil, errNoDNS
		}},
		Appliance:  func() (string, time.Duration, bool) { return "rackbootd", 0, true },
		PingRounds: 1, PingWait: 100 * time.Millisecond,
	})}
	if _, err := client.Register(context.Background(), id); err != nil {
		b.t.Fatalf("register %s: %v", id, err)
	}
	return a
}

// agentToken is the agent token the infra-env's discovery.ign carries.
func (b *bed) agentToken(ie string) string {
	b.t.Helper()
	req, err := http.NewRequest("GET", b.srv.URL+api.BasePath+"/infra-envs/"+ie+"/downloads/files?file_name=discovery.ign", nil)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testAdmin)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	cfg, rpt, err := v35.Parse(raw)
	if err != nil {
		b.t.Fatalf("discovery.ign: %v %s", err, rpt)
	}
	for _, f := range cfg.Storage.Files {
		if f.Path != discovery.AgentConfigPath {
			continue
		}
		data, err := url.PathUnescape(strings.TrimPrefix(*f.Contents.Source, "data:,"))
		if err != nil {
			b.t.Fatal(err)
		}
		var ac discovery.AgentConfig
		if err := json.Unmarshal([]byte(data), &ac); err != nil {
			b.t.Fatal(err)
		}
		return ac.Token
	}
	b.t.Fatal("discovery.ign carries no agent config")
	return ""
}

// poll asks for instructions once and runs them with the agent's
// executors (not the install step: the test reports the stages).
func (a *agent) poll() []models.StepType {
	a.b.t.Helper()
	ctx := context.Background()
	st, err := a.client.NextSteps(ctx, a.id, time.Now())
	if err != nil {
		a.b.t.Fatalf("host %s: instructions: %v", a.id, err)
	}
	var ran []models.StepType
	for _, s := range st.Instructions {
		ran = append(ran, s.StepType)
		if s.StepType == models.StepTypeInstall || s.StepType == models.StepTypeInstallationDiskSpeedCheck {
			continue // the bed drives the installation; the inventory's disk is not the test's to write
		}
		out, err := a.runner.Executors[s.StepType](ctx, s.Args)
		if err != nil {
			a.b.t.Fatalf("host %s: step %s: %v", a.id, s.StepType, err)
		}
		if err := a.client.PostReply(ctx, a.id, &models.StepReply{StepID: s.StepID, StepType: s.StepType, Output: out}); err != nil {
			a.b.t.Fatalf("host %s: reply %s: %v", a.id, s.StepType, err)
		}
	}
	return ran
}

// progress reports an installation stage.
func (a *agent) progress(stage models.HostStage, info string) {
	a.b.t.Helper()
	if err := a.client.PutProgress(context.Background(), a.id, models.HostProgress{CurrentStage: stage, ProgressInfo: info}); err != nil {
		a.b.t.Fatalf("host %s: progress %s: %v", a.id, stage, err)
	}
}

// waitFor waits until cond holds on the model, re-checking on every
// change the store applies (the test's own deadline bounds it).
func (b *bed) waitFor(what string, cond func(m *engine.Model) bool) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		changes := b.store.Subscribe(ctx)
		var ok bool
		b.store.Read(func(m *engine.Model) { ok = cond(m) })
		if ok {
			return
		}
		select {
		case <-changes:
		case <-ctx.Done():
			b.t.Fatalf("gave up waiting for %s", what)
		}
	}
}

func hostID(i int) string { return fmt.Sprintf("52540000-aabb-0001-0000-%012d", i) }

// registerMany registers n hosts in infra-env ie, each answering only its
// inventory step (hostnames rack-0001…), concurrently as agents would.
func (b *bed) registerMany(ie string, n int) {
	b.t.Helper()
	agents := make([]*agent, n)
	for i := range n {
		agents[i] = b.newAgent(ie, hostID(1000+i), fmt.Sprintf("rack-%04d", i+1))
	}
	ctx := context.Background()
	errs := make(chan error, n)
	sem := make(chan struct{}, 8)
	for _, a := range agents {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- a.inventoryOnly(ctx)
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			b.t.Fatal(err)
		}
	}
}

// inventoryOnly asks for instructions once and answers the inventory step.
func (a *agent) inventoryOnly(ctx context.Context) error {
	st, err := a.client.NextSteps(ctx, a.id, time.Now())
	if err != nil {
		return fmt.Errorf("host %s: %w", a.id, err)
	}
	for _, s := range st.Instructions {
		if s.StepType != models.StepTypeInventory {
			continue
		}
		out, err := a.runner.Executors[s.StepType](ctx, s.Args)
		if err != nil {
			return fmt.Errorf("host %s: inventory: %w", a.id, err)
		}
		if err := a.client.PostReply(ctx, a.id, &models.StepReply{StepID: s.StepID, StepType: s.StepType, Output: out}); err != nil {
			return fmt.Errorf("host %s: reply: %w", a.id, err)
		}
	}
	return nil
}
