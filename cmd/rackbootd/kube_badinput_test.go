package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// index is the raft index as kubectl sees it: a list's resourceVersion.
func (k *kubeTest) index() string {
	k.t.Helper()
	return k.must("get", "namespaces", "-o", "jsonpath={.metadata.resourceVersion}")
}

// TestKubectlBadInput: each kind of bad input is refused as kubectl prints
// a real API server's refusal, and nothing is written (the raft index, as
// a list's resourceVersion, does not move; a refused replace leaves the
// object as it was): an unknown kind, an unknown field under strict
// validation, a wrong type, an invalid CIDR or MAC, a required field left
// out, a field set twice, a stale resourceVersion, an oversized object. A Secret referenced but missing
// is not refused (upstream neither): the InfraEnv says so in its
// ImageCreated condition until the Secret is there.
func TestKubectlBadInput(t *testing.T) {
	k := newKubeTest(t)
	k.must("create", "namespace", "kni21")
	k.must("create", "configmap", "cm", "-n", "kni21", "--from-literal=a=b")
	f := func(name, content string) string {
		return writeFile(t, k.home, name, content)
	}
	doc := func(apiVersion, kind, name, body string) string {
		return "apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata:\n  name: " + name + "\n  namespace: kni21\n" + body
	}
	const aci = "extensions.hive.openshift.io/v1beta1"
	aciSpec := func(networking string) string {
		return "spec:\n  clusterDeploymentRef:\n    name: c\n  provisionRequirements:\n    controlPlaneAgents: 1\n  networking:\n" + networking
	}
	before := k.index()
	cmRV := k.must("get", "configmap", "cm", "-n", "kni21", "-o", "jsonpath={.metadata.resourceVersion}")

	unknownKind := f("unknown-kind.yaml", doc("agent-install.openshift.io/v1beta1", "InfraEnvironment", "x", ""))
	k.fails(`error: resource mapping not found for name: "x" namespace: "kni21" from "`+unknownKind+
		`": no matches for kind "InfraEnvironment" in version "agent-install.openshift.io/v1beta1"`, "apply", "-f", unknownKind)
	k.fails("ensure CRDs are installed first", "create", "-f", unknownKind)

	unknownField := f("unknown-field.yaml", doc("agent-install.openshift.io/v1beta1", "InfraEnv", "x",
		"spec:\n  pullSecretRef:\n    name: ps\n  foo: 1\n"))
	k.fails(`Error from server (BadRequest): error when creating "`+unknownField+`": InfraEnv in version "v1beta1" cannot be handled as a InfraEnv: `+
		`strict decoding error: unknown field "spec.foo"`, "create", "-f", unknownField)

	wrongType := f("wrong-type.yaml", doc(aci, "AgentClusterInstall", "c", aciSpec("    userManagedNetworking: \"true\"\n")))
	k.fails(`The AgentClusterInstall "c" is invalid: `+
		`spec.networking.userManagedNetworking: Invalid value: "string": spec.networking.userManagedNetworking in body must be of type boolean: "string"`,
		"create", "-f", wrongType)

	cidr := f("cidr.yaml", doc(aci, "AgentClusterInstall", "c", aciSpec("    clusterNetwork:\n    - cidr: 10.128.0.0/33\n      hostPrefix: 23\n"+
		"    serviceNetwork:\n    - 172.30.0.0\n")))
	k.fails(`The AgentClusterInstall "c" is invalid: `+
		"\n* spec.networking.clusterNetwork[0].cidr: Invalid value: \"10.128.0.0/33\": spec.networking.clusterNetwork[0].cidr in body must be of type cidr: \"10.128.0.0/33\""+
		"\n* spec.networking.serviceNetwork[0]: Invalid value: \"172.30.0.0\": spec.networking.serviceNetwork[0] in body must be of type cidr: \"172.30.0.0\"\n",
		"apply", "-f", cidr)
	machine := f("machine.yaml", doc(aci, "AgentClusterInstall", "c", aciSpec("    machineNetwork:\n    - cidr: 192.168.1.300/24\n")))
	k.fails(`spec.networking.machineNetwork[0].cidr: Invalid value: "192.168.1.300/24": spec.networking.machineNetwork[0].cidr in body must be of type cidr`,
		"apply", "-f", machine)

	nmstate := f("nmstate.yaml", doc("agent-install.openshift.io/v1beta1", "NMStateConfig", "nm",
		"spec:\n  config:\n    interfaces: []\n  interfaces:\n  - name: eth0\n    macAddress: 52:54:00:00:00\n"))
	k.fails(`The NMStateConfig "nm" is invalid: `+"\n"+`* spec.interfaces[0].macAddress: Invalid value: "52:54:00:00:00": spec.interfaces[0].macAddress in body must be of type mac`,
		"apply", "-f", nmstate)
	route := f("route.yaml", doc("agent-install.openshift.io/v1beta1", "NMStateConfig", "nm",
		"spec:\n  config:\n    routes:\n      config:\n      - destination: 10.0.0.0/33\n        next-hop-address: 192.168.1.1\n"+
			"  interfaces:\n  - name: eth0\n    macAddress: 52:54:00:00:00:01\n"))
	k.fails(`The NMStateConfig "nm" is invalid: spec.config.routes.config[0].destination: Invalid value: "10.0.0.0/33": `+
		`spec.config.routes.config[0].destination in body must be of type ip-or-cidr: "10.0.0.0/33"`, "create", "-f", route)
	bmh := f("bmh.yaml", doc("metal3.io/v1alpha1", "BareMetalHost", "h",
		"spec:\n  online: true\n  bootMACAddress: 52-54-00-00-00-0g\n  bmc:\n    address: redfish://10.0.0.1/redfish/v1/Systems/1\n    credentialsName: h-bmc\n"))
	k.fails(`The BareMetalHost "h" is invalid: `+"\n"+
		`* spec.bootMACAddress: Invalid value: "52-54-00-00-00-0g": spec.bootMACAddress in body must be of type mac: "52-54-00-00-00-0g"`+"\n"+
		`* spec.bootMACAddress: Invalid value: "52-54-00-00-00-0g": spec.bootMACAddress in body should match '[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}'`+"\n",
		"apply", "-f", bmh)

	// A field the schema requires, left out.
	noPullSecret := f("no-pull-secret.yaml", doc("agent-install.openshift.io/v1beta1", "InfraEnv", "x", "spec:\n  sshAuthorizedKey: ssh-ed25519 AAAA\n"))
	k.fails(`The InfraEnv "x" is invalid: spec.pullSecretRef: Required value`, "apply", "-f", noPullSecret)
	noRequirements := f("no-requirements.yaml", doc(aci, "AgentClusterInstall", "c",
		"spec:\n  clusterDeploymentRef:\n    name: c\n  networking:\n    machineNetwork:\n    - {}\n"))
	k.fails(`The AgentClusterInstall "c" is invalid: `+"\n"+`* spec.networking.machineNetwork[0].cidr: Required value`+"\n"+
		`* spec.provisionRequirements: Required value`+"\n", "create", "--validate=false", "-f", noRequirements)

	// A field set twice in a JSON body (kubectl create --raw sends the
	// file as it is).
	dup := f("dup.json", `{"apiVersion":"agent-install.openshift.io/v1beta1","kind":"InfraEnv","metadata":{"name":"x","namespace":"kni21"},`+
		`"spec":{"pullSecretRef":{"name":"ps"},"sshAuthorizedKey":"k1","sshAuthorizedKey":"k2"}}`)
	k.fails(`Error from server (BadRequest): InfraEnv in version "v1beta1" cannot be handled as a InfraEnv: strict decoding error: `+
		`duplicate field "spec.sshAuthorizedKey"`,
		"create", "--raw", "/apis/agent-install.openshift.io/v1beta1/namespaces/kni21/infraenvs?fieldValidation=Strict", "-f", dup)

	// A stale resourceVersion, and an object over 1 MiB.
	stale := f("stale.yaml", doc("v1", "ConfigMap", "cm", "  resourceVersion: \"1\"\ndata:\n  a: c\n"))
	k.fails(`Error from server (Conflict): error when replacing "`+stale+`": Operation cannot be fulfilled on configmaps "cm": `+
		`the object has been modified; please apply your changes to the latest version and try again`, "replace", "-f", stale)
	big := filepath.Join(k.home, "big.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 1<<20+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	k.fails(`error: failed to create configmap: Request entity too large: limit is 1048576`,
		"create", "configmap", "big", "-n", "kni21", "--from-file=big="+big)
	for _, kind := range []string{"infraenvs", "agentclusterinstalls", "nmstateconfigs", "baremetalhosts"} {
		if out := k.must("get", kind, "-n", "kni21", "-o", "name"); out != "" {
			t.Errorf("refused objects were written: %s", out)
		}
	}
	if got := k.must("get", "configmap", "cm", "-n", "kni21", "-o", "jsonpath={.metadata.resourceVersion}:{.data.a}"); got != cmRV+":b" {
		t.Errorf("the configmap after the refused replace: %s, want %s:b", got, cmRV)
	}
	if after := k.index(); after != before {
		t.Errorf("the refused requests moved the raft index from %s to %s", before, after)
	}
}

// TestKubectlMissingSecret: a Secret referenced but missing is not a
// refusal (upstream's API server takes the object, its controller says
// what is wrong): the InfraEnv is created, its ImageCreated condition is
// False with ImageCreationError naming the Secret, and once the Secret is
// created the image is made. A BareMetalHost whose credentialsName names
// no Secret is taken as well.
func TestKubectlMissingSecret(t *testing.T) {
	k := newKubeTest(t)
	k.must("create", "namespace", "kni21")
	ie := writeFile(t, k.home, "infraenv.yaml", "apiVersion: agent-install.openshift.io/v1beta1\nkind: InfraEnv\nmetadata:\n  name: kni21\n  namespace: kni21\n"+
		"spec:\n  pullSecretRef:\n    name: pull-secret\n")
	wantLines(t, "create", k.must("create", "-f", ie), "infraenv.agent-install.openshift.io/kni21 created")
	wantLines(t, "wait False", k.must("wait", "--for=condition=ImageCreated=False", "infraenv/kni21", "-n", "kni21", "--timeout=60s"),
		"infraenv.agent-install.openshift.io/kni21 condition met")
	wantLines(t, "condition", k.must("get", "infraenv", "kni21", "-n", "kni21", "-o",
		`jsonpath={range .status.conditions[*]}{.type}{"\t"}{.status}{"\t"}{.reason}{"\t"}{.message}{"\n"}{end}`),
		"ImageCreated\tFalse\tImageCreationError\tFailed to create image: Secret \"pull-secret\" not found\n")
	ps := writeFile(t, k.home, "pull-secret.json", `{"auths":{"quay.io":{"auth":"dTpw"}}}`)
	k.must("create", "secret", "generic", "pull-secret", "-n", "kni21", "--from-file=.dockerconfigjson="+ps, "--type=kubernetes.io/dockerconfigjson")
	wantLines(t, "wait True", k.must("wait", "--for=condition=ImageCreated", "infraenv/kni21", "-n", "kni21", "--timeout=60s"),
		"infraenv.agent-install.openshift.io/kni21 condition met")

	bmh := writeFile(t, k.home, "bmh.yaml", "apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: h\n  namespace: kni21\n"+
		"spec:\n  online: true\n  bootMACAddress: 52:54:00:00:00:01\n  bmc:\n    address: redfish://10.0.0.1/redfish/v1/Systems/1\n    credentialsName: h-bmc\n")
	wantLines(t, "create bmh", k.must("create", "-f", bmh), "baremetalhost.metal3.io/h created")
}
