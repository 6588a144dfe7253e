package e2e

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/testbed/e2e/installbed"
)

// ztp is what the end-to-end kubectl flows declare: the seeds' kinds
// (002/003 Hive integration) for one cluster in namespace Name.
type ztp struct {
	Name         string // the namespace, ClusterDeployment and AgentClusterInstall
	ControlPlane int
	Workers      int
	VIPs         bool              // apiVIP/ingressVIP (multi-node)
	Nodes        []installbed.Node // an NMStateConfig each
}

// manifests is the YAML applied with `kubectl apply -f`: the pull secret,
// a ClusterImageSet naming the bed's image set, the ClusterDeployment and
// AgentClusterInstall, the InfraEnv every MAC boots into
// (installbed.InfraEnvName, the config's default_infra_env) bound to the
// cluster by clusterRef, and an NMStateConfig a node with its MAC and
// the static address of its DHCP reservation.
func (z ztp) manifests() string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: v1
kind: Secret
metadata:
  name: pull-secret
  namespace: %[1]s
type: kubernetes.io/dockerconfigjson
stringData:
  .dockerconfigjson: '%[2]s'
---
apiVersion: hive.openshift.io/v1
kind: ClusterImageSet
metadata:
  name: %[3]s
spec:
  releaseImage: quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64
---
apiVersion: hive.openshift.io/v1
kind: ClusterDeployment
metadata:
  name: %[1]s
  namespace: %[1]s
spec:
  clusterName: %[1]s
  baseDomain: %[4]s
  platform:
    agentBareMetal:
      agentSelector:
        matchLabels:
          cluster-name: %[1]s
  pullSecretRef:
    name: pull-secret
  clusterInstallRef:
    group: extensions.hive.openshift.io
    version: v1beta1
    kind: AgentClusterInstall
    name: %[1]s
---
apiVersion: extensions.hive.openshift.io/v1beta1
kind: AgentClusterInstall
metadata:
  name: %[1]s
  namespace: %[1]s
spec:
  clusterDeploymentRef:
    name: %[1]s
  imageSetRef:
    name: %[3]s
  sshPublicKey: %[5]q
  networking:
    clusterNetwork:
      - cidr: 10.128.0.0/14
        hostPrefix: 23
    serviceNetwork:
      - 172.30.0.0/16
    machineNetwork:
      - cidr: %[6]s
  provisionRequirements:
    controlPlaneAgents: %[7]d
    workerAgents: %[8]d
`, z.Name, installbed.PullSecret, installbed.ImageSetName, installbed.BaseDomain, installbed.SSHKey,
		installbed.MachineNetwork, z.ControlPlane, z.Workers)
	if z.VIPs {
		fmt.Fprintf(&b, "  apiVIP: %s\n  ingressVIP: %s\n", installbed.APIVIP, installbed.IngressVIP)
	}
	fmt.Fprintf(&b, `---
apiVersion: agent-install.openshift.io/v1beta1
kind: InfraEnv
metadata:
  name: %[2]s
  namespace: %[1]s
spec:
  clusterRef:
    name: %[1]s
    namespace: %[1]s
  agentLabels:
    cluster-name: %[1]s
  cpuArchitecture: x86_64
  pullSecretRef:
    name: pull-secret
  sshAuthorizedKey: %[3]q
  nmStateConfigLabelSelector:
    matchLabels:
      infraenv: %[2]s
`, z.Name, installbed.InfraEnvName, installbed.SSHKey)
	for _, n := range z.Nodes {
		fmt.Fprintf(&b, `---
apiVersion: agent-install.openshift.io/v1beta1
kind: NMStateConfig
metadata:
  name: %[1]s
  namespace: %[2]s
  labels:
    infraenv: %[3]s
spec:
  config:
    interfaces:
      - name: eth0
        type: ethernet
        state: up
        ipv4:
          enabled: true
          dhcp: false
          address:
            - ip: %[4]s
              prefix-length: 24
    dns-resolver:
      config:
        server:
          - %[5]s
    routes:
      config:
        - destination: 0.0.0.0/0
          next-hop-address: %[5]s
          next-hop-interface: eth0
  interfaces:
    - name: eth0
      macAddress: %[6]q
`, n.Name, z.Name, installbed.InfraEnvName, n.IP, installbed.ServerIP, n.MAC)
	}
	return b.String()
}

// agentsByNode waits until every node has an Agent in namespace ns whose
// inventory lists the node's MAC, and returns the Agents' names by node.
func agentsByNode(t *testing.T, k *kubectl, ns string, nodes []installbed.Node) map[string]string {
	t.Helper()
	ids := map[string]string{}
	find := func(out string) bool {
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Fields(line)
			for _, n := range nodes {
				for _, mac := range f[min(1, len(f)):] {
					if strings.EqualFold(mac, n.MAC) {
						ids[n.Name] = f[0]
					}
				}
			}
		}
		return len(ids) == len(nodes)
	}
	k.poll(discoveredLimit, fmt.Sprintf("%d Agents with their inventory in %s", len(nodes), ns), find,
		"get", "agents", "-n", ns, "-o", `jsonpath={range .items[*]}{.metadata.name}{" "}{.status.inventory.interfaces[*].macAddress}{"\n"}{end}`)
	return ids
}

// approveAgents approves each node's Agent and gives it its role, as
// seed 002 does: kubectl patch agents.agent-install.openshift.io ID
// --type merge.
func approveAgents(t *testing.T, k *kubectl, ns string, ids, roles map[string]string) {
	t.Helper()
	for node, id := range ids {
		patch := fmt.Sprintf(`{"spec":{"approved":true,"role":%q}}`, roles[node])
		out := k.must("-n", ns, "patch", "agents.agent-install.openshift.io", id, "-p", patch, "--type", "merge")
		if want := "agent.agent-install.openshift.io/" + id + " patched"; strings.TrimSpace(out) != want {
			t.Errorf("kubectl patch printed %q, want %q", out, want)
		}
	}
}

// waitCompleted runs `kubectl wait --for=condition=Completed` on the
// AgentClusterInstall and returns how long it took.
func waitCompleted(t *testing.T, k *kubectl, ns string) time.Duration {
	t.Helper()
	start := time.Now()
	out, err := k.run("-n", ns, "wait", "--for=condition=Completed", "agentclusterinstall/"+ns, "--timeout="+installLimit.String())
	if err != nil {
		conds, _ := k.run("-n", ns, "get", "agentclusterinstalls.extensions.hive.openshift.io", "-o",
			`jsonpath={range .items[*]}{"\n"}{.metadata.name}{"\n"}{range .status.conditions[*]}{.type}{"\t"}{.message}{"\n"}{end}`)
		t.Fatalf("%v\nthe ACI's conditions:%s", err, conds)
	}
	if want := "agentclusterinstall.extensions.hive.openshift.io/" + ns + " condition met"; strings.TrimSpace(out) != want {
		t.Errorf("kubectl wait printed %q, want %q", out, want)
	}
	return time.Since(start).Round(time.Second)
}

// aciUID is the AgentClusterInstall's uid: the domain cluster's id.
func aciUID(t *testing.T, k *kubectl, ns string) string {
	t.Helper()
	id := strings.TrimSpace(k.must("-n", ns, "get", "agentclusterinstall", ns, "-o", "jsonpath={.metadata.uid}"))
	if id == "" {
		t.Fatal("the AgentClusterInstall has no uid")
	}
	return id
}

// secretValue is a key of a Secret, as `kubectl get secret -o jsonpath`
// prints it, decoded.
func secretValue(t *testing.T, k *kubectl, ns, name, key string) string {
	t.Helper()
	out := k.must("-n", ns, "get", "secret", name, "-o", "jsonpath={.data."+strings.ReplaceAll(key, ".", `\.`)+"}")
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("secret %s key %s: %v", name, key, err)
	}
	return string(b)
}

// deleteAll runs `kubectl delete -f` on the manifests (which waits for
// the finalizers) and checks that nothing of them is left in ns, nor any
// Agent.
func deleteAll(t *testing.T, k *kubectl, ns, file string) {
	t.Helper()
	start := time.Now()
	out := k.must("delete", "-f", file, "--timeout=10m")
	t.Logf("kubectl delete -f (%s):\n%s", time.Since(start).Round(time.Second), out)
	for _, want := range []string{"agentclusterinstall.extensions.hive.openshift.io \"" + ns + "\" deleted",
		"infraenv.agent-install.openshift.io \"" + installbed.InfraEnvName + "\" deleted"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl delete -f does not say %s", want)
		}
	}
	left, err := k.run("-n", ns, "get", "agents,agentclusterinstalls,clusterdeployments,infraenvs,nmstateconfigs", "-o", "name")
	if err != nil || strings.TrimSpace(left) != "" {
		t.Errorf("left after kubectl delete -f (%v):\n%s", err, left)
	}
	if out, err := k.run("get", "clusterimageset", installbed.ImageSetName); err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Errorf("the ClusterImageSet is still there (%v):\n%s", err, out)
	}
	// The controllers' Secrets (the admin credentials) are not in the
	// file: upstream garbage-collects them with their ClusterDeployment.
	secrets, _ := k.run("-n", ns, "get", "secrets", "-o", "name")
	t.Logf("Secrets left in %s after kubectl delete -f: %q", ns, strings.TrimSpace(secrets))
	if out := k.must("delete", "namespace", ns); strings.TrimSpace(out) != `namespace "`+ns+`" deleted` {
		t.Errorf("kubectl delete namespace printed %q", out)
	}
}
