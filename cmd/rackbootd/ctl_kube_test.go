package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
)

// ctlKube runs rackbootctl (package cli, in this process) against one
// rackbootd.
type ctlKube struct {
	t   *testing.T
	d   *testDaemon
	dir string // manifests
}

// run runs rackbootctl with stdin and returns its stdout, stderr and
// exit code.
func (c *ctlKube) run(stdin string, args ...string) (string, string, int) {
	c.t.Helper()
	var out, errOut bytes.Buffer
	all := append([]string{"--url", "http://" + c.d.httpAddr, "--data-dir", filepath.Join(c.d.dir, "state")}, args...)
	code := cli.Run(context.Background(), all, cli.Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut})
	return out.String(), errOut.String(), code
}

// ok runs rackbootctl, which must succeed, and returns its stdout.
func (c *ctlKube) ok(args ...string) string {
	c.t.Helper()
	out, errOut, code := c.run("", args...)
	if code != 0 {
		c.t.Fatalf("rackbootctl %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// fails runs rackbootctl, which must exit 1 printing want on stderr and
// nothing on stdout.
func (c *ctlKube) fails(stdin, want string, args ...string) {
	c.t.Helper()
	out, errOut, code := c.run(stdin, args...)
	if code != 1 || !strings.Contains(errOut, want) || out != "" {
		c.t.Errorf("rackbootctl %s: exit %d, want 1 and %q on stderr; stdout:\n%s\nstderr:\n%s",
			strings.Join(args, " "), code, want, out, errOut)
	}
}

// usage runs rackbootctl, which must exit 2 (a usage error) printing
// want on stderr.
func (c *ctlKube) usage(want string, args ...string) {
	c.t.Helper()
	out, errOut, code := c.run("", args...)
	if code != 2 || !strings.Contains(errOut, want) || out != "" {
		c.t.Errorf("rackbootctl %s: exit %d, want 2 and %q on stderr; stdout:\n%s\nstderr:\n%s",
			strings.Join(args, " "), code, want, out, errOut)
	}
}

// watch starts rackbootctl args (a get -w) until the test ends and
// returns its output lines.
func (c *ctlKube) watch(args ...string) <-chan string {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	all := append([]string{"--url", "http://" + c.d.httpAddr, "--data-dir", filepath.Join(c.d.dir, "state")}, args...)
	go func() {
		var errOut bytes.Buffer
		code := cli.Run(ctx, all, cli.Env{Stdout: pw, Stderr: &errOut})
		pw.Close()
		done <- code
	}()
	c.t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			c.t.Errorf("rackbootctl %s: exit %d after Ctrl-C", strings.Join(args, " "), code)
		}
	})
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// next is the next line of a watch.
func next(t *testing.T, lines <-chan string) string {
	t.Helper()
	l, ok := <-lines
	if !ok {
		t.Fatal("the watch ended")
	}
	return l
}

// file writes a manifest and returns its path.
func (c *ctlKube) file(name, text string) string {
	c.t.Helper()
	p := filepath.Join(c.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// startKubeDaemon is a rackbootd with an image set for 4.17.0, as
// TestKubectlClusterInstallStartsByItself has.
func startKubeDaemon(t *testing.T) *testDaemon {
	t.Helper()
	d := newTestDaemon(t, freePort(t, "tcp"), freePort(t, "udp"))
	writeFile(t, d.dir, "disk.img", strings.Repeat("disk image ", 1000))
	writeFile(t, d.dir, "roles/master.ign", `{"ignition":{"version":"3.4.0"}}`)
	writeFile(t, d.dir, "roles/worker.ign", `{"ignition":{"version":"3.4.0"}}`)
	d.writeConfig(d.configText("console=ttyS0", "vmlinuz") + installImageSet)
	d.start(nil)
	d.waitNote("READY=1")
	return d
}

const nsAndSecret = `apiVersion: v1
kind: Secret
metadata:
  name: pull-secret
  namespace: sno1
type: kubernetes.io/dockerconfigjson
stringData:
  .dockerconfigjson: '{"auths":{"quay.io":{"auth":"dTpw"}}}'
---
apiVersion: v1
kind: Namespace
metadata:
  name: sno1
`

// lineOrder fails unless want's lines appear in got in that order.
func lineOrder(t *testing.T, what, got string, want ...string) {
	t.Helper()
	rest := got
	for _, w := range want {
		i := strings.Index(rest, w+"\n")
		if i < 0 {
			t.Errorf("%s: no %q (after the lines before it) in\n%s", what, w, got)
			return
		}
		rest = rest[i+len(w):]
	}
}

// rackbootctl apply -f, get, describe, wait and delete -f of seed 002's
// manifests against a rackbootd: refused input changes nothing; a
// directory applied in dependency order (the Namespace and Secret first,
// though the files list them last); applied again, unchanged; a change
// from stdin, configured; --dry-run=server writes nothing; get with -n,
// -A, -l and every -o; names without -n; wait through a watch; delete -f
// in reverse order.
func TestCtlApplyGetWaitDelete(t *testing.T) {
	d := startKubeDaemon(t)
	c := &ctlKube{t: t, d: d, dir: t.TempDir()}
	sno, err := os.ReadFile("testdata/kube/sno.yaml")
	if err != nil {
		t.Fatal(err)
	}

	// Refused before anything is sent.
	c.fails("", `sno.yaml (document 1): unknown resource: kind "Widget" of "example.com/v1" is not served (the server's kinds: agentclusterinstalls, agents,`,
		"apply", "-f", c.file("bad/sno.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n---\n"+nsAndSecret))
	c.fails("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: sno1\n---\nkind: [\n", "standard input (document 2)", "apply", "-f", "-")
	c.fails("", `namespace "sno1" not found (create it, or add a Namespace document)`, "apply", "-f", c.file("nons/sno.yaml", string(sno)))
	c.fails("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", `ConfigMap "x" has no metadata.namespace: set it or pass -n`, "apply", "-f", "-")
	c.usage(`get: unknown resource "widgets" (the server's kinds: agentclusterinstalls, agents,`, "get", "widgets")
	c.fails("", "— check --token, RACKBOOT_TOKEN or the admin-token file", "--token", "not-the-token", "get", "agents")
	if _, errOut, code := c.run("", "-v", "get", "namespaces"); code != 0 || !strings.Contains(errOut, `msg="kube api" method=GET path=/api/v1/namespaces status=200`) {
		t.Errorf("get -v: exit %d: %s", code, errOut)
	}
	if _, errOut, code := c.run("", "get", "namespaces,clusterimagesets"); code != 0 || errOut != "No resources found.\n" {
		t.Errorf("the refused applies left objects behind (exit %d): %s", code, errOut)
	}

	c.file("ztp/sno.yaml", string(sno))
	c.file("ztp/base/ns.yaml", nsAndSecret)
	dir := filepath.Join(c.dir, "ztp")
	lineOrder(t, "apply -R", c.ok("apply", "-R", "-f", dir),
		"namespace/sno1 created", "secret/pull-secret created", "configmap/sno1-install-manifests created",
		"clusterimageset.hive.openshift.io/openshift-v4.17.0 created", "clusterdeployment.hive.openshift.io/sno1 created",
		"agentclusterinstall.extensions.hive.openshift.io/sno1 created", "infraenv.agent-install.openshift.io/sno1 created")
	// Without -R the subdirectory (the Namespace and Secret) is not read.
	if out := c.ok("apply", "-f", dir); strings.Contains(out, "namespace/") || !strings.Contains(out, "infraenv.agent-install.openshift.io/sno1 unchanged") {
		t.Errorf("apply -f DIR without -R:\n%s", out)
	}
	wantLines(t, "apply again", c.ok("apply", "-R", "-f", dir), "namespace/sno1 unchanged", "agentclusterinstall.extensions.hive.openshift.io/sno1 unchanged")
	// kubectl's client-side apply and rackbootctl's agree on the last
	// applied configuration.
	if _, err := os.Stat(kubectlBin); err == nil {
		k := kubeFor(t, d)
		wantLines(t, "kubectl apply after rackbootctl apply", k.must("apply", "-R", "-f", dir),
			"namespace/sno1 unchanged", "infraenv.agent-install.openshift.io/sno1 unchanged", "agentclusterinstall.extensions.hive.openshift.io/sno1 unchanged")
	}

	changed := strings.Replace(string(sno), "cluster-name: sno1\n", "cluster-name: sno1\n    rack: r1\n", -1)
	changed = changed[strings.LastIndex(changed, "---"):] // the InfraEnv
	out, errOut, code := c.run(changed, "apply", "-f", "-", "--dry-run=server")
	if code != 0 || out != "infraenv.agent-install.openshift.io/sno1 configured (server dry run)\n" {
		t.Errorf("apply --dry-run=server: exit %d: %s%s", code, out, errOut)
	}
	if got := c.ok("get", "infraenv", "sno1", "-o", "jsonpath={.spec.agentLabels.rack}"); got != "" {
		t.Errorf("the dry run changed the InfraEnv: rack=%q", got)
	}
	if out, _, code = c.run(changed, "apply", "-f", "-"); code != 0 || out != "infraenv.agent-install.openshift.io/sno1 configured\n" {
		t.Errorf("apply -f - (changed): exit %d: %s", code, out)
	}
	if got := c.ok("get", "infraenv/sno1", "-n", "sno1", "-o", "jsonpath={.spec.agentLabels.rack}"); got != "r1" {
		t.Errorf("after apply -f -: rack=%q", got)
	}

	// An object the server refuses is reported with its Status; the
	// others are applied, as kubectl does, and the exit code is 1.
	out, errOut, code = c.run("apiVersion: agent-install.openshift.io/v1beta1\nkind: InfraEnv\nmetadata:\n  name: Bad_Name\n  namespace: sno1\n"+
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n  namespace: sno1\n", "apply", "-f", "-")
	if code != 1 || out != "configmap/fine created\n" ||
		!strings.Contains(errOut, `infraenv.agent-install.openshift.io/Bad_Name: InfraEnv.agent-install.openshift.io "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`) {
		t.Errorf("apply with a refused object: exit %d\n%s%s", code, out, errOut)
	}
	c.fails("", `infraenvs.agent-install.openshift.io "Bad_Name" not found (NotFound)`, "get", "infraenv", "Bad_Name", "-n", "sno1")
	c.ok("delete", "cm", "fine", "-n", "sno1")

	// get -w: the table, then a row per change.
	lines := c.watch("get", "configmaps", "-n", "sno1", "-w")
	if h, r := next(t, lines), next(t, lines); !strings.HasPrefix(h, "NAME ") || !strings.HasPrefix(r, "sno1-install-manifests ") {
		t.Errorf("get -w began with %q, %q", h, r)
	}
	c.ok("apply", "-f", c.file("watched.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: watched\n  namespace: sno1\ndata: {a: b}\n"))
	if r := next(t, lines); !strings.HasPrefix(r, "watched ") || !strings.Contains(r, " 1 ") {
		t.Errorf("get -w: the new ConfigMap's row is %q", r)
	}
	c.ok("delete", "configmap/watched", "-n", "sno1")
	if r := next(t, lines); !strings.HasPrefix(r, "watched ") {
		t.Errorf("get -w: the deleted ConfigMap's row is %q", r)
	}

	// get: tables (NAMESPACE without -n), -o name, yaml, json, -l.
	wantLines(t, "get infraenvs", c.ok("get", "infraenvs"), "NAMESPACE   NAME   ISO CREATED AT", "sno1        sno1")
	wantLines(t, "get aci -n", c.ok("get", "aci", "-n", "sno1"), "NAME   CLUSTER   STATE", "sno1   sno1")
	wantLines(t, "get -n first", c.ok("get", "-n", "sno1", "-o", "name", "aci"), "agentclusterinstall.extensions.hive.openshift.io/sno1")
	if got := c.ok("get", "cd,aci", "-A", "-o", "name"); got != "clusterdeployment.hive.openshift.io/sno1\nagentclusterinstall.extensions.hive.openshift.io/sno1\n" {
		t.Errorf("get cd,aci -o name:\n%s", got)
	}
	wantLines(t, "get infraenv -o yaml", c.ok("get", "infraenv", "sno1", "-n", "sno1", "-o", "yaml"),
		"apiVersion: agent-install.openshift.io/v1beta1", "kind: InfraEnv", "  name: sno1", "ipxeScript: http")
	wantLines(t, "get secrets -o json", c.ok("get", "secrets", "-n", "sno1", "-o", "json"), `"kind": "List"`, `"name": "pull-secret"`)
	if got := c.ok("get", "configmaps", "-l", "nothing=here", "-o", "name"); got != "" {
		t.Errorf("get -l nothing=here: %q", got)
	}
	if _, errOut, _ := c.run("", "get", "configmaps", "-n", "sno1", "-l", "nothing=here"); errOut != "No resources found in sno1 namespace.\n" {
		t.Errorf("get -l with no match: %q", errOut)
	}
	c.fails("", `infraenvs.agent-install.openshift.io "nope" not found (NotFound)`, "get", "infraenv", "nope", "-n", "sno1")
	c.fails("", `infraenvs.agent-install.openshift.io "nope" not found in any namespace (NotFound)`, "get", "infraenv", "nope")

	// A name in two namespaces needs -n.
	c.ok("apply", "-f", c.file("other.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: other\n---\n"+
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sno1-install-manifests\n  namespace: other\n"))
	c.fails("", `configmaps "sno1-install-manifests" is in the namespaces other, sno1: pass -n`, "get", "cm", "sno1-install-manifests")
	wantLines(t, "get cm -n", c.ok("get", "cm", "sno1-install-manifests", "-n", "other"), "NAME                     DATA")

	wantLines(t, "wait", c.ok("wait", "--for=condition=SpecSynced", "agentclusterinstall/sno1", "-n", "sno1", "--timeout=60s"),
		"agentclusterinstall.extensions.hive.openshift.io/sno1 condition met")
	c.fails("", "timed out waiting for the condition on agentclusterinstalls/sno1",
		"wait", "--for=condition=Completed", "aci/sno1", "-n", "sno1", "--timeout=1s")
	wantLines(t, "describe", c.ok("describe", "aci", "sno1", "-n", "sno1"),
		"Name:         sno1", "Namespace:    sno1", "Kind:         AgentClusterInstall", "Spec:\n", "  imageSetRef:", "Status:\n",
		"    type: SpecSynced", "Events:")
	if got := c.ok("describe", "secret", "pull-secret", "-n", "sno1"); !strings.Contains(got, ".dockerconfigjson: 37 bytes") || strings.Contains(got, "dTpw") {
		t.Errorf("describe secret shows its value or not its size:\n%s", got)
	}

	lineOrder(t, "delete -f", c.ok("delete", "-R", "-f", dir),
		"infraenv.agent-install.openshift.io/sno1 deleted", "agentclusterinstall.extensions.hive.openshift.io/sno1 deleted",
		"clusterdeployment.hive.openshift.io/sno1 deleted", "clusterimageset.hive.openshift.io/openshift-v4.17.0 deleted",
		"secret/pull-secret deleted", "namespace/sno1 deleted")
	// delete waited for the finalizers, as kubectl's does.
	c.fails("", `agentclusterinstalls.extensions.hive.openshift.io "sno1" not found`, "get", "aci", "sno1", "-n", "sno1")
	wantLines(t, "wait --for=delete", c.ok("wait", "--for=delete", "namespace/sno1", "infraenv/sno1", "-n", "sno1", "--timeout=60s"),
		"namespace/sno1 deleted", "infraenv.agent-install.openshift.io/sno1 deleted")
	c.fails("", `clusterimagesets.hive.openshift.io "openshift-v4.17.0" not found (NotFound)`, "delete", "-f", filepath.Join(dir, "sno.yaml"))
	if out, errOut, code := c.run("", "delete", "-f", filepath.Join(dir, "sno.yaml"), "--ignore-not-found"); code != 0 || out != "" {
		t.Errorf("delete --ignore-not-found: exit %d: %s%s", code, out, errOut)
	}
}
