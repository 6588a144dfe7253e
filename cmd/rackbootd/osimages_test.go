package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/boot/coreos/coreostest"
)

// agentServiceConfig is upstream's AgentServiceConfig with osImages.
const agentServiceConfig = `apiVersion: agent-install.openshift.io/v1beta1
kind: AgentServiceConfig
metadata:
  name: agent
spec:
  databaseStorage:
    accessModes: [ReadWriteOnce]
    resources: {requests: {storage: 10Gi}}
  filesystemStorage:
    accessModes: [ReadWriteOnce]
    resources: {requests: {storage: 100Gi}}
  osImages:
%s`

func osImage(version, arch, iso, rootfs string) string {
	return fmt.Sprintf("  - openshiftVersion: %q\n    version: \"416.94.202406251923-0\"\n    cpuArchitecture: %s\n    url: %s\n    rootFSUrl: %s\n",
		version, arch, iso, rootfs)
}

// TestAgentServiceConfigOSImagesBecomeCoreOSImageSets: an AgentServiceConfig
// applied with kubectl whose osImages name a mirror's live ISO and rootfs
// (served on loopback) becomes the CoreOS image set ocp-<version>-<arch>:
// the mirror's files are downloaded under data_dir, and a host of an
// infra-env of that architecture gets seed 001's script with the ISO's
// kernel and the mirror's rootfs. An entry whose rootfs the mirror does
// not have is left out; a restart without the mirror serves the image set
// from the start; deleting the AgentServiceConfig removes the image set.
// Its status is upstream's ReconcileCompleted condition: False
// (OSImagesFailure) naming the entry left out, by the fetch or by the
// reload (no rackboot-agent for its architecture), True once it is
// dropped; a status written by hand is written back.
func TestAgentServiceConfigOSImagesBecomeCoreOSImageSets(t *testing.T) {
	needKubectl(t)
	m := coreostest.NewMirror(t)
	mirror := httptest.NewServer(http.FileServer(http.Dir(m.Dir)))
	defer mirror.Close()
	d := newTestDaemon(t, freePort(t, "tcp"), freePort(t, "udp"))
	d.writeConfig(strings.Replace(d.engineConfig(""), "[server]\n", fmt.Sprintf("[server]\nagent_dir = %q\n", m.AgentDir), 1))
	d.start(nil)
	d.waitNote("READY=1")
	d.createInfraEnv("lab")
	k := kubeFor(t, d)

	url := func(p string) string { return mirror.URL + "/" + filepath.Base(p) }
	spec := filepath.Join(t.TempDir(), "asc.yaml")
	writeFile(t, filepath.Dir(spec), filepath.Base(spec), fmt.Sprintf(agentServiceConfig,
		osImage("4.16", "x86_64", url(m.ISO["x86_64"]), url(m.RootfsFile["x86_64"]))+
			osImage("4.16", "arm64", url(m.ISO["aarch64"]), mirror.URL+"/missing-rootfs.img")))
	k.must("apply", "-f", spec)
	d.waitNote("RELOADING=1")
	d.waitNote("READY=1", "reloaded")

	want := strings.ReplaceAll(strings.ReplaceAll(liveScript, "/images/fcos/", "/images/ocp-4.16-x86_64/"),
		" console=tty1 console=ttyS0,115200n8", "")
	if script := d.get("/boot/52-54-00-00-00-06/script.ipxe"); script != strings.ReplaceAll(want, "ADDR", d.httpAddr) {
		t.Errorf("script:\n%s\nwant:\n%s", script, strings.ReplaceAll(want, "ADDR", d.httpAddr))
	}
	if got := d.get("/boot/52-54-00-00-00-06/kernel"); got != string(m.Kernel["x86_64"]) {
		t.Errorf("kernel: %d bytes, not the ISO's vmlinuz (%d)", len(got), len(m.Kernel["x86_64"]))
	}
	if got := d.get("/images/ocp-4.16-x86_64/rootfs.img"); got != string(m.Rootfs["x86_64"]) {
		t.Errorf("rootfs: %d bytes, want the mirror's %d", len(got), len(m.Rootfs["x86_64"]))
	}
	if code := status(t, "http://"+d.httpAddr+"/images/ocp-4.16-aarch64/rootfs.img"); code != http.StatusNotFound {
		t.Errorf("the entry whose rootfs is missing: rootfs %d, want 404 (left out)", code)
	}
	if ents, err := os.ReadDir(filepath.Join(d.dir, "state", "coreos", "osimages")); err != nil || len(ents) < 2 {
		t.Errorf("data_dir/coreos/osimages: %v %v", ents, err)
	}
	// Its status says so, as upstream's ReconcileCompleted condition;
	// once the entry is dropped, the reconcile completes.
	cond := func(field string) string {
		return k.must("get", "agentserviceconfig", "agent", "-o", "jsonpath={.status.conditions[?(@.type==\"ReconcileCompleted\")]."+field+"}")
	}
	if st, reason, msg := cond("status"), cond("reason"), cond("message"); st != "False" || reason != "OSImagesFailure" ||
		!strings.HasPrefix(msg, "osImages entries left out: osImages ocp-4.16-aarch64: rootFSUrl") || strings.Contains(msg, "ocp-4.16-x86_64") {
		t.Errorf("ReconcileCompleted %s %s %q", st, reason, msg)
	}
	writeFile(t, filepath.Dir(spec), filepath.Base(spec), fmt.Sprintf(agentServiceConfig,
		osImage("4.16", "x86_64", url(m.ISO["x86_64"]), url(m.RootfsFile["x86_64"]))))
	k.must("apply", "-f", spec)
	k.must("wait", "--for=condition=ReconcileCompleted", "agentserviceconfig/agent", "--timeout=60s")
	if reason, msg := cond("reason"), cond("message"); reason != "ReconcileSucceeded" || msg != "AgentServiceConfig reconcile completed without error." {
		t.Errorf("ReconcileCompleted True %s %q", reason, msg)
	}

	// An entry the reload leaves out (no rackboot-agent for arm64 in
	// agent_dir) is in the condition too, and a status written by someone
	// else is written back.
	if err := os.RemoveAll(filepath.Join(m.AgentDir, "arm64")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Dir(spec), filepath.Base(spec), fmt.Sprintf(agentServiceConfig,
		osImage("4.16", "x86_64", url(m.ISO["x86_64"]), url(m.RootfsFile["x86_64"]))+
			osImage("4.16", "arm64", url(m.ISO["aarch64"]), url(m.RootfsFile["aarch64"]))))
	k.must("apply", "-f", spec)
	k.must("wait", "--for=condition=ReconcileCompleted=False", "agentserviceconfig/agent", "--timeout=60s")
	noAgent := func() bool {
		msg := cond("message")
		return cond("reason") == "OSImagesFailure" && strings.HasPrefix(msg, "osImages entries left out: osImages ocp-4.16-aarch64: ") &&
			strings.Contains(msg, "rackboot-agent") && !strings.Contains(msg, "x86_64")
	}
	if !noAgent() {
		t.Errorf("ReconcileCompleted False %s %q, want the aarch64 entry without an agent", cond("reason"), cond("message"))
	}
	k.must("patch", "agentserviceconfig", "agent", "--subresource=status", "--type=merge", "-p",
		`{"status":{"conditions":[{"type":"ReconcileCompleted","status":"True","reason":"ReconcileSucceeded","message":"written by hand","lastTransitionTime":"2024-01-01T00:00:00Z"}]}}`)
	k.must("wait", "--for=condition=ReconcileCompleted=False", "agentserviceconfig/agent", "--timeout=60s")
	if !noAgent() {
		t.Errorf("after the status was written by hand: ReconcileCompleted %s %q", cond("reason"), cond("message"))
	}
	writeFile(t, filepath.Dir(spec), filepath.Base(spec), fmt.Sprintf(agentServiceConfig,
		osImage("4.16", "x86_64", url(m.ISO["x86_64"]), url(m.RootfsFile["x86_64"]))))
	k.must("apply", "-f", spec)
	k.must("wait", "--for=condition=ReconcileCompleted", "agentserviceconfig/agent", "--timeout=60s")

	// Restarted with the mirror gone, the appliance serves the image set
	// from its start: the downloads and the sets are kept in data_dir.
	mirror.Close()
	d.stop()
	d.start(nil)
	d.waitNote("READY=1")
	if got := d.get("/images/ocp-4.16-x86_64/rootfs.img"); got != string(m.Rootfs["x86_64"]) {
		t.Errorf("rootfs after a restart: %d bytes, want the mirror's %d", len(got), len(m.Rootfs["x86_64"]))
	}

	k.must("delete", "agentserviceconfig", "agent")
	d.waitNote("RELOADING=1")
	d.waitNote("READY=1", "reloaded")
	if code := status(t, "http://"+d.httpAddr+"/images/ocp-4.16-x86_64/rootfs.img"); code != http.StatusNotFound {
		t.Errorf("after deleting the AgentServiceConfig: rootfs %d, want 404", code)
	}
}

func status(t *testing.T, u string) int {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
