package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
)

// kubectlBin is the real kubectl (v1.32 on the test machines).
const kubectlBin = "/usr/bin/kubectl"

// kubeTest runs kubectl against a rackbootd with the kubeconfig that
// rackbootctl kubeconfig prints.
type kubeTest struct {
	t      *testing.T
	dir    string
	home   string
	config string // the kubeconfig
	env    []string
}

func newKubeTest(t *testing.T) *kubeTest {
	t.Helper()
	needKubectl(t)
	d := startDaemon(t)
	d.waitNote("READY=1")
	return kubeFor(t, d)
}

func needKubectl(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(kubectlBin); err != nil {
		t.Skipf("no kubectl: %v", err)
	}
}

// kubeFor is kubectl with the kubeconfig rackbootctl prints for d.
func kubeFor(t *testing.T, d *testDaemon) *kubeTest {
	t.Helper()
	return kubeAt(t, d, d.httpAddr)
}

// kubeAt is kubectl with the kubeconfig rackbootctl prints on appliance d
// (its data directory) for the server at addr.
func kubeAt(t *testing.T, d *testDaemon, addr string) *kubeTest {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), []string{"--url", "http://" + addr,
		"--data-dir", filepath.Join(d.dir, "state"), "kubeconfig"}, cli.Env{Stdout: &out, Stderr: &errOut})
	if code != 0 {
		t.Fatalf("rackbootctl kubeconfig: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "server: https://"+addr) || !strings.Contains(out.String(), "certificate-authority-data: ") {
		t.Fatalf("kubeconfig without the https server and its CA:\n%s", out.String())
	}
	home := t.TempDir()
	kc := filepath.Join(home, "kubeconfig")
	if err := os.WriteFile(kc, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return &kubeTest{t: t, dir: d.dir, home: home, config: out.String(), env: append(os.Environ(), "KUBECONFIG="+kc, "HOME="+home)}
}

// watch starts kubectl with args (a `get -w`) until the test ends and
// returns its output lines.
func (k *kubeTest) watch(args ...string) <-chan string {
	k.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, kubectlBin, args...)
	cmd.Env = k.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		k.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
	k.t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// nextLine is the next line a kubectl watch printed, failing the test
// when the watch ends or prints nothing for waitLimit (what it waits for
// says which).
func nextLine(t *testing.T, lines <-chan string, what string) string {
	t.Helper()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("kubectl get -w ended")
		}
		return l
	case <-time.After(waitLimit):
		t.Fatal("kubectl get -w printed no " + what)
	}
	return ""
}

// run runs kubectl and returns its stdout and stderr; ok is its success.
func (k *kubeTest) run(args ...string) (stdout, stderr string, ok bool) {
	k.t.Helper()
	cmd := exec.Command(kubectlBin, args...)
	cmd.Env = k.env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	return o.String(), e.String(), err == nil
}

// started is a kubectl command left running.
type started struct {
	done           <-chan error // its exit
	stdout, stderr *syncBuffer
}

// start starts kubectl with args and leaves it running (killed when the
// test ends).
func (k *kubeTest) start(args ...string) started {
	k.t.Helper()
	cmd := exec.Command(kubectlBin, args...)
	cmd.Env = k.env
	s := started{stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = s.stdout, s.stderr
	if err := cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	k.t.Cleanup(func() { _ = cmd.Process.Kill() })
	s.done = done
	return s
}

// registeredHostBecomesAgent registers a host as the discovery agent does
// (the REST API, the agent token of the ipxeScript URL), waits for its
// Agent, approves it with seed 002's kubectl patch and reads the approval
// back through the REST API.
func (k *kubeTest) registeredHostBecomesAgent(ipxe string) {
	t := k.t
	t.Helper()
	u, err := url.Parse(ipxe)
	if err != nil {
		t.Fatal(err)
	}
	ieID := strings.Split(strings.TrimPrefix(u.Path, "/api/assisted-install/v2/infra-envs/"), "/")[0]
	base := u.Scheme + "://" + u.Host + "/api/assisted-install/v2/infra-envs/" + ieID + "/hosts"
	const hostID = "5c1a9d0e-3b7f-4d2a-8e6f-0a1b2c3d4e5f"
	req, _ := http.NewRequest("POST", base, strings.NewReader(`{"host_id":"`+hostID+`","discovery_agent_version":"test"}`))
	req.Header.Set("X-Secret-Key", u.Query().Get("api_key"))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("register: %s %s", resp.Status, b)
	}
	wantLines(t, "wait for the Agent", k.must("wait", "--for=create", "agent/"+hostID, "-n", "kni21", "--timeout=30s"),
		"agent.agent-install.openshift.io/"+hostID+" condition met")
	wantLines(t, "the Agent's labels", k.must("get", "agents", "-n", "kni21", "-l", "project=kni21", "-o", "name"),
		"agent.agent-install.openshift.io/"+hostID)
	k.must("-n", "kni21", "patch", "agents.agent-install.openshift.io", hostID, "-p", `{"spec":{"approved":true}}`, "--type", "merge")
	tok, err := os.ReadFile(filepath.Join(k.dir, "state", "admin-token"))
	if err != nil {
		t.Fatal(err)
	}
	// The controller approves the host, then records the synced spec on
	// the Agent: once kubectl sees that, the host is approved.
	k.must("wait", `--for=jsonpath={.metadata.annotations.rackboot\.io/synced-spec}={"approved":true,"role":"auto-assign"}`,
		"agent/"+hostID, "-n", "kni21", "--timeout=30s")
	// The controller saw the patched spec (generation 2).
	k.must("wait", "--for=jsonpath={.status.observedGeneration}=2", "agent/"+hostID, "-n", "kni21", "--timeout=30s")
	req, _ = http.NewRequest("GET", base+"/"+hostID, nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct{ Approved bool }
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || !h.Approved {
		t.Errorf("the host after approving its Agent: approved %v (%v)", h.Approved, err)
	}
}

// httpGet fetches u (plain HTTP, as iPXE does) and returns the body.
func (k *kubeTest) httpGet(u string) string {
	k.t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		k.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		k.t.Fatalf("GET %s: %s %s", u, resp.Status, b)
	}
	return string(b)
}

// must runs kubectl, which must succeed, and returns its stdout.
func (k *kubeTest) must(args ...string) string {
	k.t.Helper()
	out, errOut, ok := k.run(args...)
	if !ok {
		k.t.Fatalf("kubectl %s failed:\n%s%s", strings.Join(args, " "), out, errOut)
	}
	return out
}

// fails runs kubectl, which must fail printing want on stderr, and
// returns stderr.
func (k *kubeTest) fails(want string, args ...string) {
	k.t.Helper()
	out, errOut, ok := k.run(args...)
	if ok || !strings.Contains(errOut, want) {
		k.t.Errorf("kubectl %s: ok=%v, stderr %q, want it to fail with %q (stdout %q)", strings.Join(args, " "), ok, errOut, want, out)
	}
}

func wantLines(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s: no %q in\n%s", what, w, got)
		}
	}
}

const agentID = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"

// TestKubectlSeeds drives rackbootd with real kubectl as the seeds do:
// create namespace and the pull secret, apply the seeds' manifests (twice:
// unchanged), get them with upstream's printer columns, patch an Agent
// as seed 002 does, and see NotFound, AlreadyExists, Invalid and a stale
// resourceVersion refused as kubectl prints a real API server's refusals.
func TestKubectlSeeds(t *testing.T) {
	k := newKubeTest(t)
	manifests, err := filepath.Abs("testdata/kube/ztp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ie := filepath.Join(k.home, "infraenv.yaml")
	writeFile(t, k.home, "infraenv.yaml", "apiVersion: agent-install.openshift.io/v1beta1\nkind: InfraEnv\nmetadata:\n  name: kni21\n  namespace: kni21\n")
	k.fails(`Error from server (NotFound): error when creating "`+ie+`": namespaces "kni21" not found`, "create", "-f", ie)

	wantLines(t, "create namespace", k.must("create", "namespace", "kni21"), "namespace/kni21 created")
	ps := filepath.Join(k.home, "pull-secret.json")
	if err := os.WriteFile(ps, []byte(`{"auths":{"quay.io":{"auth":"dTpw"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	wantLines(t, "create secret", k.must("create", "secret", "generic", "pull-secret", "-n", "kni21",
		"--from-file=.dockerconfigjson="+ps, "--type=kubernetes.io/dockerconfigjson"), "secret/pull-secret created")
	wantLines(t, "get secret", k.must("get", "secret", "pull-secret", "-n", "kni21", "-o", "jsonpath={.data.\\.dockerconfigjson}"),
		"eyJhdXRocyI6eyJxdWF5LmlvIjp7ImF1dGgiOiJkVHB3In19fQ==")

	wantLines(t, "apply", k.must("apply", "-f", manifests),
		"clusterimageset.hive.openshift.io/openshift-v4.10.16 created",
		"agentserviceconfig.agent-install.openshift.io/agent created",
		"infraenv.agent-install.openshift.io/kni21 created",
		"configmap/my-baremetal-cluster-install-manifests created",
		"nmstateconfig.agent-install.openshift.io/master-0 created",
		"clusterdeployment.hive.openshift.io/kni21 created",
		"agentclusterinstall.extensions.hive.openshift.io/kni21 created",
		"agent.agent-install.openshift.io/"+agentID+" created")
	wantLines(t, "apply again", k.must("apply", "-f", manifests),
		"infraenv.agent-install.openshift.io/kni21 unchanged", "agent.agent-install.openshift.io/"+agentID+" unchanged")

	wantLines(t, "get infraenvs -A", k.must("get", "infraenvs", "-A"), "NAMESPACE   NAME    ISO CREATED AT", "kni21       kni21")
	wantLines(t, "get agents", k.must("get", "agents", "-n", "kni21"),
		"NAME                                   CLUSTER   APPROVED   ROLE   STAGE", agentID+"   kni21     false")
	wantLines(t, "get agents -o wide", k.must("get", "agents", "-A", "-o", "wide"), "HOSTNAME   REQUESTED HOSTNAME", "master-0")
	wantLines(t, "get aci", k.must("get", "agentclusterinstalls", "-n", "kni21"), "NAME    CLUSTER   STATE", "kni21   kni21")
	k.must("wait", "--for=jsonpath={.status.observedGeneration}=1", "aci/kni21", "-n", "kni21", "--timeout=30s")
	wantLines(t, "get clusterimagesets", k.must("get", "clusterimagesets"),
		"NAME                 RELEASE", "openshift-v4.10.16   quay.io/openshift-release-dev/ocp-release:4.10.16-x86_64")

	// Seed 002's approval, verbatim but for the names.
	wantLines(t, "patch agent", k.must("-n", "kni21", "patch", "agents.agent-install.openshift.io", agentID,
		"-p", `{"spec":{"approved":true}}`, "--type", "merge"), "agent.agent-install.openshift.io/"+agentID+" patched")
	wantLines(t, "get agent", k.must("get", "agents", "-n", "kni21"), agentID+"   kni21     true")
	wantLines(t, "generation", k.must("get", "agent", agentID, "-n", "kni21", "-o", "jsonpath={.metadata.generation}"), "2")

	// The controller makes the infra-env: ImageCreated, and seed 001's
	// `kubectl get infraenv ... -o yaml | grep ipxeScript` gives the iPXE
	// script's URL, which serves the script.
	wantLines(t, "wait", k.must("wait", "--for=condition=ImageCreated", "infraenv/kni21", "-n", "kni21", "--timeout=30s"),
		"infraenv.agent-install.openshift.io/kni21 condition met")
	ipxe := ""
	for _, l := range strings.Split(k.must("get", "infraenv", "kni21", "-n", "kni21", "-o", "yaml"), "\n") {
		if _, u, ok := strings.Cut(l, "ipxeScript: "); ok {
			ipxe = strings.TrimSpace(u)
		}
	}
	if !strings.Contains(ipxe, "/api/assisted-install/v2/infra-envs/") || !strings.Contains(ipxe, "api_key=") {
		t.Fatalf("ipxeScript %q", ipxe)
	}
	if script := k.httpGet(ipxe); !strings.HasPrefix(script, "#!ipxe") {
		t.Errorf("the ipxeScript URL serves %q", script)
	}
	k.registeredHostBecomesAgent(ipxe)
	wantLines(t, "a write to the object keeps the status", k.must("patch", "infraenv", "kni21", "-n", "kni21", "--type=merge",
		"-p", `{"status":{"conditions":[]}}`), "infraenv.agent-install.openshift.io/kni21 patched (no change)")

	k.fails(`Error from server (NotFound): infraenvs.agent-install.openshift.io "nope" not found`,
		"get", "infraenv", "nope", "-n", "kni21")
	k.fails(`Error from server (AlreadyExists): error when creating "`+manifests+`": infraenvs.agent-install.openshift.io "kni21" already exists`,
		"create", "-f", manifests)
	bad := filepath.Join(k.home, "bad.yaml")
	writeFile(t, k.home, "bad.yaml", "apiVersion: agent-install.openshift.io/v1beta1\nkind: InfraEnv\nmetadata:\n  name: Bad_Name\n  namespace: kni21\n")
	k.fails(`The InfraEnv "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"`, "create", "-f", bad)

	// A stale resourceVersion: the object changed since it was read.
	stale := k.must("get", "agent", agentID, "-n", "kni21", "-o", "yaml")
	k.must("-n", "kni21", "patch", "agent", agentID, "-p", `{"spec":{"hostname":"m0"}}`, "--type", "merge")
	writeFile(t, k.home, "stale.yaml", stale)
	k.fails(`Error from server (Conflict): error when replacing "`+filepath.Join(k.home, "stale.yaml")+
		`": Operation cannot be fulfilled on agents.agent-install.openshift.io "`+agentID+
		`": the object has been modified; please apply your changes to the latest version and try again`,
		"replace", "-f", filepath.Join(k.home, "stale.yaml"))
	// As hive's webhook: a ClusterDeployment's spec is immutable but for
	// its mutable fields (the agentSelector is one).
	k.fails(`admission webhook "clusterdeploymentvalidators.admission.agentinstall.openshift.io" denied the request: `+
		`Attempted to change ClusterDeployment.Spec which is immutable except for CertificateBundles,`,
		"-n", "kni21", "patch", "clusterdeployment", "kni21", "--type", "merge", "-p", `{"spec":{"baseDomain":"other.example.com"}}`)
	wantLines(t, "patch the agentSelector", k.must("-n", "kni21", "patch", "clusterdeployment", "kni21", "--type", "merge",
		"-p", `{"spec":{"platform":{"agentBareMetal":{"agentSelector":{"matchLabels":{"project":"kni21","rack":"r1"}}}}}}`),
		"clusterdeployment.hive.openshift.io/kni21 patched")
	wantLines(t, "after the refused replace", k.must("get", "agent", agentID, "-n", "kni21", "-o", "jsonpath={.spec.hostname}"), "m0")

	// Deleting the ClusterDeployment deletes its AgentClusterInstall (as
	// upstream's owner reference does), which may be gone before kubectl
	// reaches it in the file: --ignore-not-found, as a user would.
	wantLines(t, "delete", k.must("delete", "--ignore-not-found", "-f", manifests),
		"infraenv.agent-install.openshift.io \"kni21\" deleted", "agent.agent-install.openshift.io \""+agentID+"\" deleted")
	_, errOut, _ := k.run("get", "infraenvs", "-A")
	wantLines(t, "get after delete", errOut, "No resources found")
	// The AgentClusterInstall's finalizer deregisters its cluster first.
	for _, kind := range []string{"agentclusterinstalls", "clusterdeployments", "agents"} {
		pollUntil(t, func() (bool, string) {
			out, errOut, _ := k.run("get", kind, "-A")
			return strings.Contains(errOut, "No resources found"), "get " + kind + " after delete: " + out + errOut
		})
	}
}

// TestKubectlWatch: kubectl get -w prints the current Agents, then a
// change made by another kubectl as a MODIFIED row.
func TestKubectlWatch(t *testing.T) {
	k := newKubeTest(t)
	manifests, _ := filepath.Abs("testdata/kube/ztp.yaml")
	k.must("create", "namespace", "kni21")
	k.must("apply", "-f", manifests)

	lines := k.watch("get", "agents", "-n", "kni21", "-w", "--output-watch-events")
	next := func() string { t.Helper(); return nextLine(t, lines, "line") }
	if l := next(); !strings.HasPrefix(l, "EVENT") || !strings.Contains(l, "APPROVED") {
		t.Fatalf("header %q", l)
	}
	if l := next(); !strings.HasPrefix(l, "ADDED") || !strings.Contains(l, agentID) || !strings.Contains(l, "false") {
		t.Fatalf("first row %q, want the Agent ADDED", l)
	}
	k.must("-n", "kni21", "patch", "agents.agent-install.openshift.io", agentID, "-p", `{"spec":{"approved":true}}`, "--type", "merge")
	if l := next(); !strings.HasPrefix(l, "MODIFIED") || !strings.Contains(l, agentID) || !strings.Contains(l, "true") {
		t.Fatalf("after the patch %q, want the Agent MODIFIED and approved", l)
	}
	k.must("delete", "agent", agentID, "-n", "kni21")
	if l := next(); !strings.HasPrefix(l, "DELETED") || !strings.Contains(l, agentID) {
		t.Fatalf("after the delete %q, want the Agent DELETED", l)
	}
}
