package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cluster"
)

// follower returns a rack member that knows a leader other than itself,
// and another member.
func rackFollower(t *testing.T, ds []*testDaemon) (follower, other *testDaemon) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		for i, d := range ds {
			code, b := d.admin("GET", "/api/rackboot/v1/cluster", nil)
			var st cluster.Status
			if code == 200 && json.Unmarshal(b, &st) == nil && st.Leader != "" && st.Leader != st.Node {
				return d, ds[(i+1)%len(ds)]
			}
		}
	}
	t.Fatal("no follower knows a leader")
	return nil, nil
}

// Through a follower of a three-appliance rack, kubectl creates the
// namespace, the pull secret and the seeds' manifests (the writes are
// forwarded to the leader), and a kubectl get -w on another appliance
// sees the Agent appear and change.
func TestKubectlThroughFollower(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three rackbootd processes")
	}
	needKubectl(t)
	ds := rackDaemons(t, 3)
	follower, other := rackFollower(t, ds)
	kf, ko := kubeFor(t, follower), kubeFor(t, other)
	manifests, _ := filepath.Abs("testdata/kube/ztp.yaml")

	kf.must("create", "namespace", "kni21")
	// One kubeconfig for the rack: another appliance's (the rack CA and
	// the name its certificates carry) works against the follower.
	kx := kubeAt(t, other, follower.httpAddr)
	wantLines(t, "the rack's kubeconfig", kx.config, "tls-server-name: rackboot-api")
	wantLines(t, "another appliance's kubeconfig", kx.must("get", "namespace", "kni21"), "kni21   Active")
	lines := ko.watch("get", "agents", "-n", "kni21", "-w", "--output-watch-events")
	waitRow := func(prefix, want string) {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatal("kubectl get -w ended")
				}
				if strings.HasPrefix(l, prefix) && strings.Contains(l, want) {
					return
				}
			case <-time.After(waitLimit):
				t.Fatalf("no %s row with %q", prefix, want)
			}
		}
	}

	writeFile(t, kf.home, "ps.json", `{"auths":{"quay.io":{"auth":"dTpw"}}}`)
	kf.must("create", "secret", "generic", "pull-secret", "-n", "kni21",
		"--from-file=.dockerconfigjson="+filepath.Join(kf.home, "ps.json"), "--type=kubernetes.io/dockerconfigjson")
	wantLines(t, "apply through a follower", kf.must("apply", "-f", manifests), "infraenv.agent-install.openshift.io/kni21 created")
	waitRow("ADDED", agentID)
	kf.must("-n", "kni21", "patch", "agents.agent-install.openshift.io", agentID, "-p", `{"spec":{"approved":true}}`, "--type", "merge")
	waitRow("MODIFIED", "true")

	// The leader's controller makes the ACI's cluster: SpecSynced seen
	// through the follower, the cluster through another appliance's REST API.
	wantLines(t, "ACI synced", kf.must("wait", "--for=condition=SpecSynced", "aci/kni21", "-n", "kni21", "--timeout=60s"),
		"agentclusterinstall.extensions.hive.openshift.io/kni21 condition met")
	uid := kf.must("get", "aci", "kni21", "-n", "kni21", "-o", "jsonpath={.metadata.uid}")
	if code, b := other.admin("GET", "/api/assisted-install/v2/clusters/"+uid, nil); code != 200 || !strings.Contains(string(b), `"name":"kni21"`) {
		t.Errorf("the ACI's cluster on %s: %d %s", other.httpAddr, code, b)
	}

	// Every appliance serves the objects, the sealed pull secret included.
	for _, d := range ds {
		k := kubeFor(t, d)
		wantLines(t, "get infraenvs on "+d.httpAddr, k.must("get", "infraenvs", "-A"), "kni21       kni21")
		wantLines(t, "secret on "+d.httpAddr, k.must("get", "secret", "pull-secret", "-n", "kni21", "-o", "jsonpath={.data.\\.dockerconfigjson}"),
			"eyJhdXRocyI6eyJxdWF5LmlvIjp7ImF1dGgiOiJkVHB3In19fQ==")
	}
}
