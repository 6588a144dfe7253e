package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// aciConditions is seed 002's command that prints the
// AgentClusterInstalls' conditions.
var aciConditions = []string{"get", "agentclusterinstalls.extensions.hive.openshift.io", "-n", "sno1",
	`-o=jsonpath={range .items[*]}{"\n"}{.metadata.name}{"\n"}{range .status.conditions[*]}{.type}{"\t"}{.message}{"\n"}{end}`}

// agentConditions is seed 002's command that prints the Agents'
// conditions.
var agentConditions = []string{"get", "agents.agent-install.openshift.io", "-n", "sno1",
	`-o=jsonpath={range .items[*]}{"\n"}{.spec.clusterDeploymentName.name}{"\n"}{.status.inventory.hostname}{"\n"}{range .status.conditions[*]}{.type}{"\t"}{.message}{"\n"}{end}`}

// Seed 002's flow with real kubectl: the pull secret, ClusterImageSet,
// ClusterDeployment, AgentClusterInstall and an InfraEnv bound by
// clusterRef applied with kubectl; a host registers from the InfraEnv's
// iPXE script URL and reports its inventory as the agent does; the ACI
// says what the installation waits for (the Agent's approval); approved
// with seed 002's kubectl patch, the installation starts by itself and
// the ACI's and Agent's conditions say so, as upstream's print them. A
// pull secret changed in its Secret is taken before the start and
// refused after it (SpecSynced BackendError), as upstream's.
func TestKubectlClusterInstallStartsByItself(t *testing.T) {
	needKubectl(t)
	d := newTestDaemon(t, freePort(t, "tcp"), freePort(t, "udp"))
	writeFile(t, d.dir, "disk.img", strings.Repeat("disk image ", 1000))
	writeFile(t, d.dir, "roles/master.ign", `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/role","contents":{"source":"data:,master"}}]}}`)
	writeFile(t, d.dir, "roles/worker.ign", `{"ignition":{"version":"3.4.0"}}`)
	d.writeConfig(d.configText("console=ttyS0", "vmlinuz") + installImageSet)
	d.start(nil)
	d.waitNote("READY=1")
	k := kubeFor(t, d)

	k.must("create", "namespace", "sno1")
	ps := filepath.Join(k.home, "pull-secret.json")
	if err := os.WriteFile(ps, []byte(`{"auths":{"quay.io":{"auth":"dTpw"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	k.must("create", "secret", "generic", "pull-secret", "-n", "sno1", "--from-file=.dockerconfigjson="+ps,
		"--type=kubernetes.io/dockerconfigjson")
	manifests, err := filepath.Abs("testdata/kube/sno.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, "apply", k.must("apply", "-f", manifests),
		"clusterimageset.hive.openshift.io/openshift-v4.17.0 created", "clusterdeployment.hive.openshift.io/sno1 created",
		"agentclusterinstall.extensions.hive.openshift.io/sno1 created", "infraenv.agent-install.openshift.io/sno1 created")
	wantLines(t, "wait SpecSynced", k.must("wait", "--for=condition=SpecSynced", "agentclusterinstall/sno1", "-n", "sno1", "--timeout=30s"),
		"agentclusterinstall.extensions.hive.openshift.io/sno1 condition met")
	wantLines(t, "the ACI before any Agent", k.must(aciConditions...),
		"SpecSynced\tThe Spec has been successfully applied",
		"RequirementsMet\tThe cluster is not ready to begin the installation",
		"Completed\tThe installation has not yet started",
		"Failed\tThe installation has not failed",
		"Stopped\tThe installation is waiting to start or in progress")
	wantLines(t, "the ACI's state", k.must("get", "aci", "sno1", "-n", "sno1"), "NAME   CLUSTER   STATE", "sno1   sno1      insufficient")
	// The cluster (its id is the ACI's uid) has the ConfigMap's manifest.
	clusterID := k.must("get", "aci", "sno1", "-n", "sno1", "-o", "jsonpath={.metadata.uid}")
	var mfs []struct {
		Folder   string `json:"folder"`
		FileName string `json:"file_name"`
	}
	d.doJSON("GET", "/clusters/"+clusterID+"/manifests", "Authorization: Bearer "+d.adminToken(), "", 200, &mfs)
	if len(mfs) != 1 || mfs[0].Folder != "openshift" || mfs[0].FileName != "99_master_kernel_arg.yaml" {
		t.Errorf("the cluster's manifests: %+v", mfs)
	}

	// A new pull secret in the Secret (kubectl replace) is taken to the
	// cluster before the installation, as upstream's updateIfNeeded.
	setPullSecret := func(content string) {
		t.Helper()
		if err := os.WriteFile(ps, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		y := k.must("create", "secret", "generic", "pull-secret", "-n", "sno1", "--from-file=.dockerconfigjson="+ps,
			"--type=kubernetes.io/dockerconfigjson", "--dry-run=client", "-o", "yaml")
		f := filepath.Join(k.home, "pull-secret.yaml")
		if err := os.WriteFile(f, []byte(y), 0o600); err != nil {
			t.Fatal(err)
		}
		k.must("replace", "-f", f)
	}
	const ps2 = `{"auths":{"quay.io":{"auth":"dTI6cDI="}}}`
	setPullSecret(ps2)

	// The InfraEnv's image is made once its cluster exists; a host boots
	// it and registers with the script URL's agent token.
	k.must("wait", "--for=condition=ImageCreated", "infraenv/sno1", "-n", "sno1", "--timeout=30s")
	ipxe := k.must("get", "infraenv", "sno1", "-n", "sno1", "-o", "jsonpath={.status.bootArtifacts.ipxeScript}")
	u, err := url.Parse(ipxe)
	if err != nil {
		t.Fatal(err)
	}
	ieID := strings.Split(strings.TrimPrefix(u.Path, apiBase+"/infra-envs/"), "/")[0]
	agent := "X-Secret-Key: " + u.Query().Get("api_key")
	const hostID = "5eed0000-0000-4000-8000-0000000000a1"
	hostPath := "/infra-envs/" + ieID + "/hosts/" + hostID
	d.doJSON("POST", "/infra-envs/"+ieID+"/hosts", agent, `{"host_id":"`+hostID+`"}`, 201, nil)
	d.answerSteps(agent, hostPath)
	k.must("wait", "--for=create", "agent/"+hostID, "-n", "sno1", "--timeout=30s")
	k.must("wait", `--for=jsonpath={.status.conditions[?(@.type=="RequirementsMet")].reason}=UnapprovedAgents`,
		"aci/sno1", "-n", "sno1", "--timeout=60s")
	wantLines(t, "the ACI waiting for the approval", k.must(aciConditions...),
		"Validated\tThe cluster's validations are passing",
		"RequirementsMet\tThe installation is pending on the approval of 1 agents",
		"Completed\tThe installation has not yet started")
	// One control-plane Agent discovered, none ready (not approved).
	if got := k.must("get", "aci", "sno1", "-n", "sno1", "-o",
		"jsonpath={.status.controlPlaneAgentsDiscovered}/{.status.controlPlaneAgentsReady}"); got != "1/" {
		t.Errorf("controlPlaneAgentsDiscovered/Ready %q, want 1/", got)
	}
	wantLines(t, "the Agent before its approval", k.must(agentConditions...),
		"sno1\n", "SpecSynced\tThe Spec has been successfully applied",
		"Connected\tThe agent's connection to the installation service is unimpaired",
		"RequirementsMet\tThe agent is not approved",
		"Installed\tThe installation has not yet started",
		"Bound\tThe agent is bound to a cluster deployment")

	// The host's NTP step output as the Agent's ntpSources.
	if got := k.must("get", "agent", hostID, "-n", "sno1", "-o", `jsonpath={.status.ntpSources[*].sourceName}/{.status.ntpSources[*].sourceState}`); got != "rackbootd/synced" {
		t.Errorf("the Agent's ntpSources: %q", got)
	}
	// The Agent's inventory in upstream's fields.
	if got := k.must("get", "agent", hostID, "-n", "sno1", "-o", `jsonpath={.status.inventory.cpu.count} {.status.inventory.memory.physicalBytes} `+
		`{.status.inventory.systemVendor.manufacturer} {.status.inventory.interfaces[0].macAddress} {.status.inventory.disks[1].installationEligibility.eligible}`); got != "2 2147483648 QEMU 52:54:00:12:34:01 true" {
		t.Errorf("the Agent's inventory: %q", got)
	}

	// Seed 002's approval: the installation starts by itself.
	k.must("-n", "sno1", "patch", "agents.agent-install.openshift.io", hostID, "-p", `{"spec":{"approved":true}}`, "--type", "merge")
	k.must("wait", `--for=jsonpath={.status.conditions[?(@.type=="Completed")].reason}=InstallationInProgress`,
		"aci/sno1", "-n", "sno1", "--timeout=60s")
	wantLines(t, "the ACI installing", k.must(aciConditions...),
		"RequirementsMet\tThe cluster requirements are met",
		"Completed\tThe installation is in progress: ",
		"Stopped\tThe installation is waiting to start or in progress")
	state := k.must("get", "aci", "sno1", "-n", "sno1", "-o", "jsonpath={.status.debugInfo.state}")
	if state != "preparing-for-installation" && state != "installing" {
		t.Errorf("debugInfo.state %q, want preparing-for-installation or installing", state)
	}
	// The domain's events as the objects' Events (kubectl describe).
	wantRow(t, "describe aci", k.must("describe", "aci", "sno1", "-n", "sno1"),
		"Normal", "ClusterRegistrationSucceeded", "rackboot", "Successfully registered cluster sno1")
	wantRow(t, "describe aci", k.must("describe", "aci", "sno1", "-n", "sno1"),
		"Normal", "ClusterInstallationStarted", "Updated status of the cluster to preparing-for-installation")
	wantRow(t, "describe agent", k.must("describe", "agent", hostID, "-n", "sno1"),
		"Normal", "HostRegistrationSucceeded", "Host "+hostID+": Successfully registered")
	wantRow(t, "get events", k.must("get", "events", "-n", "sno1", "--field-selector", "involvedObject.kind=AgentClusterInstall"),
		"sno1.", "Normal", "ClusterStatusUpdated", "Updated status of the cluster to ready")
	// As upstream's webhook: the ACI's spec is immutable once installing.
	k.fails(`Error from server (Forbidden): admission webhook "agentclusterinstallvalidators.admission.agentinstall.openshift.io" denied the request: `+
		`Attempted to change AgentClusterInstall.Spec which is immutable after install started, except for ClusterMetadata fields.`,
		"patch", "aci", "sno1", "-n", "sno1", "--type", "merge", "-p", `{"spec":{"sshPublicKey":"ssh-ed25519 AAAA other"}}`)
	// Once installing, a pull secret change is refused as upstream's
	// cluster update refuses it; the Secret put back syncs again (the
	// cluster has the pull secret taken before the start).
	setPullSecret(`{"auths":{"quay.io":{"auth":"dTM6cDM="}}}`)
	k.must("wait", `--for=jsonpath={.status.conditions[?(@.type=="SpecSynced")].reason}=BackendError`,
		"aci/sno1", "-n", "sno1", "--timeout=60s")
	wantRow(t, "the pull secret change refused", k.must(aciConditions...),
		"SpecSynced\tThe Spec could not be synced due to backend error: Cluster "+clusterID+" is in ", " state, cluster can be updated only in one of [insufficient ready pending-for-input adding-hosts]")
	wantLines(t, "the ACI's other conditions kept", k.must(aciConditions...), "Completed\tThe installation is in progress: ")
	setPullSecret(ps2)
	k.must("wait", "--for=condition=SpecSynced", "aci/sno1", "-n", "sno1", "--timeout=60s")
	d.waitHost(ieID, hostID, "installing")
	k.must("wait", `--for=jsonpath={.status.conditions[?(@.type=="Installed")].reason}=InstallationInProgress`,
		"agent/"+hostID, "-n", "sno1", "--timeout=60s")
	wantLines(t, "the Agent installing", k.must(agentConditions...),
		"RequirementsMet\tInstallation already started and is in progress",
		"Installed\tThe installation is in progress: ")

	// The host installs and reports Done: seed 002's conditions of an
	// installed cluster, and the ClusterDeployment is installed.
	args := d.installStep(agent, hostPath)
	token := d.installIgnition(agent, args.IgnitionURL)
	for _, st := range []string{"Starting installation", "Installing", "Writing image to disk", "Rebooting"} {
		d.doJSON("PUT", hostPath+"/progress", agent, `{"current_stage":"`+st+`"}`, 200, nil)
	}
	d.doJSON("PUT", hostPath+"/progress", "X-Secret-Key: "+token, `{"current_stage":"Done"}`, 200, nil)
	k.must("wait", "--for=condition=Completed", "aci/sno1", "-n", "sno1", "--timeout=60s")
	wantLines(t, "the ACI installed", k.must(aciConditions...),
		"SpecSynced\tThe Spec has been successfully applied",
		"Validated\tThe cluster's validations are passing",
		"RequirementsMet\tThe cluster installation stopped",
		"Completed\tThe installation has completed: ",
		"Failed\tThe installation has not failed",
		"Stopped\tThe installation has stopped because it completed successfully")
	wantLines(t, "the ACI's progress", k.must("get", "aci", "sno1", "-n", "sno1", "-o", "jsonpath={.status.progress.totalPercentage} {.status.debugInfo.state}"),
		"100 installed")
	k.must("wait", "--for=jsonpath={.spec.installed}=true", "clusterdeployment/sno1", "-n", "sno1", "--timeout=30s")
	wantLines(t, "the Agent installed", k.must(agentConditions...),
		"RequirementsMet\tThe agent installation stopped", "Installed\tThe installation has completed: ")

	// Deleting the manifests: the ACI's ai-deprovision finalizer
	// deregisters the cluster and deletes its Agent before it goes
	// (kubectl delete waits for that).
	wantLines(t, "the ACI's finalizer", k.must("get", "aci", "sno1", "-n", "sno1", "-o", "jsonpath={.metadata.finalizers}"),
		`["agentclusterinstall.agent-install.openshift.io/ai-deprovision"]`)
	wantLines(t, "delete -f", k.must("delete", "-f", manifests, "--timeout=60s"),
		`agentclusterinstall.extensions.hive.openshift.io "sno1" deleted`, `infraenv.agent-install.openshift.io "sno1" deleted`)
	_, errOut, _ := k.run("get", "aci,agents", "-n", "sno1")
	wantLines(t, "after delete -f", errOut, "No resources found in sno1 namespace.")
	var clusters []any
	d.doJSON("GET", "/clusters", "Authorization: Bearer "+d.adminToken(), "", 200, &clusters)
	if len(clusters) != 0 {
		t.Errorf("clusters after the ACI was deleted: %v", clusters)
	}
}

// wantRow wants a line of got holding every part, in order.
func wantRow(t *testing.T, what, got string, parts ...string) {
	t.Helper()
	for _, l := range strings.Split(got, "\n") {
		rest, ok := l, true
		for _, p := range parts {
			i := strings.Index(rest, p)
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i+len(p):]
		}
		if ok {
			return
		}
	}
	t.Errorf("%s: no line with %q in\n%s", what, parts, got)
}

// kubectl delete of an object with finalizers marks it with its
// deletionTimestamp (kubectl get shows it; a new finalizer is refused);
// removing the last finalizer removes it.
func TestKubectlFinalizers(t *testing.T) {
	k := newKubeTest(t)
	k.must("create", "namespace", "fin")
	writeFile(t, k.home, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  namespace: fin\n  finalizers:\n  - example.com/hold\ndata:\n  a: b\n")
	k.must("apply", "-f", filepath.Join(k.home, "cm.yaml"))
	wantLines(t, "delete", k.must("delete", "configmap", "held", "-n", "fin", "--wait=false"), `configmap "held" deleted`)
	ts := k.must("get", "configmap", "held", "-n", "fin", "-o", "jsonpath={.metadata.deletionTimestamp}")
	if !strings.HasPrefix(ts, "20") || !strings.HasSuffix(ts, "Z") {
		t.Fatalf("deletionTimestamp %q", ts)
	}
	k.fails(`metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted`,
		"patch", "configmap", "held", "-n", "fin", "--type", "merge", "-p", `{"metadata":{"finalizers":["example.com/hold","example.com/more"]}}`)
	k.must("patch", "configmap", "held", "-n", "fin", "--type", "merge", "-p", `{"metadata":{"finalizers":null}}`)
	k.fails(`Error from server (NotFound): configmaps "held" not found`, "get", "configmap", "held", "-n", "fin")
}

// As kube-controller-manager's garbage collector: deleting an object
// deletes the objects whose ownerReferences name it (kubectl wait
// --for=delete returns); one that has another owner still there stays.
func TestKubectlOwnerReferencesCollected(t *testing.T) {
	k := newKubeTest(t)
	k.must("create", "namespace", "gc")
	k.must("create", "configmap", "owner", "-n", "gc", "--from-literal=a=b")
	k.must("create", "configmap", "other", "-n", "gc", "--from-literal=a=b")
	uid := k.must("get", "configmap", "owner", "-n", "gc", "-o", "jsonpath={.metadata.uid}")
	otherUID := k.must("get", "configmap", "other", "-n", "gc", "-o", "jsonpath={.metadata.uid}")
	ref := func(name, uid string) string {
		return "  - apiVersion: v1\n    kind: ConfigMap\n    name: " + name + "\n    uid: " + uid + "\n"
	}
	writeFile(t, k.home, "deps.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dependent\n  namespace: gc\n  ownerReferences:\n"+
		ref("owner", uid)+"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: gc\n  ownerReferences:\n"+
		ref("owner", uid)+ref("other", otherUID))
	k.must("apply", "-f", filepath.Join(k.home, "deps.yaml"))
	k.must("delete", "configmap", "owner", "-n", "gc")
	k.must("wait", "--for=delete", "configmap/dependent", "-n", "gc", "--timeout=30s")
	k.fails(`Error from server (NotFound): configmaps "dependent" not found`, "get", "configmap", "dependent", "-n", "gc")
	k.must("get", "configmap", "shared", "-n", "gc")
}
