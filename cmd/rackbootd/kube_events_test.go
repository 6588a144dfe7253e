package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKubectlEvents: `kubectl get events -w` prints the current Events
// and then each new one as it happens (here those of a host registering
// and its Agent being approved), and `--field-selector
// involvedObject.name=X` lists only X's.
func TestKubectlEvents(t *testing.T) {
	k := newKubeTest(t)
	manifests, _ := filepath.Abs("testdata/kube/ztp.yaml")
	k.must("create", "namespace", "kni21")
	ps := writeFile(t, k.home, "pull-secret.json", `{"auths":{"quay.io":{"auth":"dTpw"}}}`)
	k.must("create", "secret", "generic", "pull-secret", "-n", "kni21", "--from-file=.dockerconfigjson="+ps, "--type=kubernetes.io/dockerconfigjson")
	k.must("apply", "-f", manifests)
	k.must("wait", "--for=condition=ImageCreated", "infraenv/kni21", "-n", "kni21", "--timeout=30s")
	ipxe := ""
	for _, l := range strings.Split(k.must("get", "infraenv", "kni21", "-n", "kni21", "-o", "yaml"), "\n") {
		if _, u, ok := strings.Cut(l, "ipxeScript: "); ok {
			ipxe = strings.TrimSpace(u)
		}
	}
	lines := k.watch("get", "events", "-n", "kni21", "-w")
	k.registeredHostBecomesAgent(ipxe)
	const hostID = "5c1a9d0e-3b7f-4d2a-8e6f-0a1b2c3d4e5f"
	var seen []string
	for found := false; !found; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("kubectl get events -w ended:\n%s", strings.Join(seen, "\n"))
			}
			seen = append(seen, l)
			found = strings.Contains(l, hostID) && strings.Contains(l, "HostRegistrationSucceeded") &&
				strings.Contains(l, "Successfully registered")
		case <-time.After(waitLimit):
			t.Fatalf("no Event of the Agent from kubectl get events -w:\n%s", strings.Join(seen, "\n"))
		}
	}
	out := k.must("get", "events", "-n", "kni21", "--field-selector", "involvedObject.name="+hostID)
	wantLines(t, "the Agent's events", out, "HostRegistrationSucceeded", "HostUpdated")
	for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		if !strings.Contains(l, hostID) {
			t.Errorf("an Event of another object in the selection: %q", l)
		}
	}
	_, errOut, _ := k.run("get", "events", "-n", "kni21", "--field-selector", "involvedObject.name=nothing")
	wantLines(t, "no such object", errOut, "No resources found in kni21 namespace.")
}
