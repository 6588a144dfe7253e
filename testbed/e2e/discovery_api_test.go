package e2e

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/boot/coreos"
	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/api"
	"github.com/rackboot/rackboot/engine/validation"
	"github.com/rackboot/rackboot/testbed/coreosimage"
	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/netns"
	"github.com/rackboot/rackboot/testbed/qemu"
)

// apiPort is where the in-process engine API listens in the namespace.
const apiPort = "8090"

// engineServer is the engine (a real one-voter raft store under dir) and
// its REST API served inside the namespace on serverIP:apiPort, the way
// rackbootd runs them, but in the test process so that it can be stopped
// and started again over the same data directory.
type engineServer struct {
	t     *testing.T
	ns    *netns.NS
	dir   string
	admin string

	mu    sync.Mutex
	store *cluster.Store
	srv   *http.Server
	stop  context.CancelFunc
	done  chan struct{}
}

func startEngine(t *testing.T, ctx context.Context, ns *netns.NS, dir string) *engineServer {
	t.Helper()
	e := &engineServer{t: t, ns: ns, dir: dir, admin: "testbed-admin-token-0123456789"}
	e.start(ctx)
	t.Cleanup(e.shutdown)
	return e
}

func (e *engineServer) start(ctx context.Context) {
	e.t.Helper()
	octx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	store, err := cluster.Open(octx, cluster.Config{DataDir: e.dir})
	if err != nil {
		e.t.Fatalf("opening the raft store: %v", err)
	}
	keys, err := engine.LoadKeyRing(octx, store)
	if err != nil {
		store.Close()
		e.t.Fatalf("key ring: %v", err)
	}
	th := testbedThresholds()
	opts := api.Options{Store: store, AdminToken: e.admin, Keys: keys,
		ServiceURL: "http://" + serverIP + ":" + apiPort,
		Thresholds: func(*engine.Model, string) validation.Thresholds { return th }}
	h, err := api.New(opts)
	if err != nil {
		store.Close()
		e.t.Fatal(err)
	}
	var ln net.Listener
	if err := e.ns.Do(func() (err error) { ln, err = net.Listen("tcp4", serverIP+":"+apiPort); return err }); err != nil {
		store.Close()
		e.t.Fatalf("listening in the namespace: %v", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	mctx, mstop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go srv.Serve(ln)
	go func() { defer close(done); api.Monitor(mctx, opts, 5*time.Second) }()
	e.mu.Lock()
	e.store, e.srv, e.stop, e.done = store, srv, mstop, done
	e.mu.Unlock()
}

// shutdown stops serving and closes the store (a no-op when stopped).
func (e *engineServer) shutdown() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.srv == nil {
		return
	}
	e.srv.Close()
	e.stop()
	<-e.done
	if err := e.store.Close(); err != nil {
		e.t.Logf("closing the store: %v", err)
	}
	e.srv, e.store = nil, nil
}

func (e *engineServer) client() *apiClient {
	return &apiClient{t: e.t, http: nsHTTPClient(e.ns), base: "http://" + serverIP + ":" + apiPort + api.BasePath, token: e.admin}
}

// TestDiscoveryImageWithEngineAPI: three VMs (two SeaBIOS, one OVMF, with
// different CPUs, RAM and disks) boot the CoreOS-shaped live image set
// directly (its kernel and live initramfs given to QEMU with seed 001's
// arguments, the rootfs and rackboot-agent served in the namespace, the
// infra-env's discovery.ign appended as rackbootd does, with the agent as
// the remote file rackbootd adds for a CoreOS image set), get reserved addresses and hostnames from dnsmasq, and
// their agents register with the engine's REST API (served in-process on a
// real raft store). Their inventory matches the VMs, the small one fails a
// hardware threshold and says why, all are approved; the engine is stopped
// and started again on the same data directory: hosts, statuses and
// approvals are still there and every agent checks in again.
func TestDiscoveryImageWithEngineAPI(t *testing.T) {
	requireE2E(t, "dnsmasq", "gcc")
	ctx := t.Context()
	m := liveMirror(t, ctx)
	ns := newSegment(t, ctx)
	addTaps(t, ctx, ns)
	dir := t.TempDir()
	eng := startEngine(t, ctx, ns, filepath.Join(dir, "data"))
	c := eng.client()
	ie := createInfraEnv(c)
	ign := c.must(http.StatusOK, "GET", "/infra-envs/"+ie.ID+"/downloads/files?file_name=discovery.ign", nil, nil)
	rootfsURL, agent := serveLive(t, ns, m, filepath.Join(dir, "http"))
	initrd := filepath.Join(dir, "initrd.img")
	writeInitrdWithIgnition(t, m.Initrd.Path, initrd, withRemoteAgent(t, ign, agent))
	startDnsmasq(t, ctx, ns, dir)

	started := time.Now()
	var vms []*qemu.VM
	args := coreos.LiveArgs(rootfsURL, coreosimage.ImageSetKernelArgs)
	for _, h := range discoHosts {
		vms = append(vms, startDiscoVM(t, ctx, ns, h, "-kernel", m.Kernel.Path, "-initrd", initrd, "-append", args))
	}
	for i, h := range discoHosts {
		waitAgent(t, ctx, h, vms[i], started)
	}
	before := checkDiscovery(t, ctx, c, ie.ID, started, nil)
	token := agentToken(t, ign)
	for i, h := range discoHosts {
		assertNoSecrets(t, h.name, vms[i].Console(), token)
	}

	eng.shutdown()
	restarted := time.Now()
	eng.start(ctx)
	t.Logf("engine stopped and started again on %s", eng.dir)
	checkAfterRestart(t, ctx, c, ie.ID, before, restarted)
	assertAgentsCarriedOn(t, vms)
}

// liveAddr serves the live rootfs and rackboot-agent in the namespace.
const liveAddr = serverIP + ":8081"

// serveLive serves m's rootfs and this repository's bin/agent/amd64
// rackboot-agent from dir on liveAddr, as rackbootd serves them for a
// CoreOS image set, and returns the rootfs URL and the agent as Ignition
// fetches it.
func serveLive(t *testing.T, ns *netns.NS, m coreosimage.Mirror, dir string) (string, discovery.RemoteAgent) {
	t.Helper()
	root, err := image.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	agent, err := os.ReadFile(filepath.Join(coreosimage.AgentDir(root), "amd64", "rackboot-agent"))
	if err != nil {
		t.Fatalf("rackboot-agent for amd64 (make build): %v", err)
	}
	rootfs, err := os.ReadFile(m.Rootfs.Path)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"rootfs.img": rootfs, "rackboot-agent": agent} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	serveHTTP(t, ns, liveAddr, dir)
	sum := sha512.Sum512(agent)
	return "http://" + liveAddr + "/rootfs.img", discovery.RemoteAgent{URL: "http://" + liveAddr + "/rackboot-agent", SHA512: hex.EncodeToString(sum[:])}
}

// withRemoteAgent is the infra-env's discovery.ign merged into a config
// that adds rackboot-agent as the remote file (verification.hash sha512,
// mode 0755, at discovery.AgentBinary) rackbootd adds for a CoreOS image
// set; the engine's download has no agent file (it knows no image set).
func withRemoteAgent(t *testing.T, ign []byte, a discovery.RemoteAgent) string {
	t.Helper()
	hash := "sha512-" + a.SHA512
	cfg := map[string]any{
		"ignition": map[string]any{"version": "3.4.0", "config": map[string]any{"merge": []any{
			map[string]any{"source": "data:;base64," + base64.StdEncoding.EncodeToString(ign)}}}},
		"storage": map[string]any{"files": []any{map[string]any{"path": discovery.AgentBinary, "mode": 0o755,
			"contents": map[string]any{"source": a.URL, "verification": map[string]any{"hash": hash}}}}},
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// agentToken is the token in the agent.conf that ign writes.
func agentToken(t *testing.T, ign []byte) string {
	t.Helper()
	conf, err := fileContents(ign, "/etc/rackboot/agent.conf")
	if err != nil {
		t.Fatal(err)
	}
	var ac struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal([]byte(conf), &ac); err != nil || len(ac.Token) < 20 {
		t.Fatalf("agent.conf %v: no token", err)
	}
	return ac.Token
}

// assertNoSecrets: neither the infra-env's pull secret nor the agent's
// token reaches a console (Ignition's and the agent's output are there).
func assertNoSecrets(t *testing.T, name, console, token string) {
	t.Helper()
	if strings.Contains(console, "dGVzdGJlZDpzZWtyaXQ=") {
		t.Errorf("%s: the pull secret is on the console", name)
	}
	if strings.Contains(console, token) {
		t.Errorf("%s: the agent token is on the console", name)
	}
}

// startDnsmasq hands out the reserved addresses and hostnames of
// discoHosts (DHCP only: the VMs boot their kernel directly).
func startDnsmasq(t *testing.T, ctx context.Context, ns *netns.NS, dir string) {
	t.Helper()
	args := []string{"--no-daemon", "--conf-file=/dev/null", "--port=0",
		"--interface=" + bridge, "--bind-interfaces", "--log-dhcp",
		"--dhcp-range=10.99.0.50,10.99.0.90,1h", "--dhcp-leasefile=" + filepath.Join(dir, "leases"),
		"--dhcp-option=option:router," + serverIP, "--dhcp-option=option:dns-server," + serverIP}
	for _, h := range discoHosts {
		args = append(args, "--dhcp-host="+h.mac+","+h.ip+","+h.name)
	}
	startProc(t, ctx, ns, "dnsmasq", args...)
}
