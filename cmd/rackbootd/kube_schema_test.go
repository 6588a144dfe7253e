package main

import (
	"path/filepath"
	"testing"
)

// TestKubectlExplainAndFieldValidation: kubectl explain prints the kinds'
// fields with their types, enums and descriptions (the schemas served at
// /openapi/v3), and kubectl
// apply of a manifest with a misspelled field is refused as a real API
// server refuses it (kubectl asks for fieldValidation=Strict), writing
// nothing; --validate=warn creates it with kubectl's warning,
// --validate=false silently, pruned of the unknown fields and with the
// schema's defaults; a value of the wrong type or out of the enum is
// Invalid.
func TestKubectlExplainAndFieldValidation(t *testing.T) {
	k := newKubeTest(t)
	wantLines(t, "explain infraenv.spec", k.must("explain", "infraenv.spec"),
		"GROUP:      agent-install.openshift.io", "KIND:       InfraEnv", "VERSION:    v1beta1",
		"What the discovery image is made of and how its hosts are handled.",
		"pullSecretRef\t<Object> -required-", "The Secret (kubernetes.io/dockerconfigjson) with the registry credentials",
		"ipxeScriptType\t<string>", "enum: \"\", DiscoveryImageAlways, BootOrderControl")
	wantLines(t, "explain agentclusterinstall.spec.networking", k.must("explain", "agentclusterinstall.spec.networking"),
		"KIND:       AgentClusterInstall", "FIELD: networking <Object>",
		"The cluster's networks (upstream's defaults where left out).",
		"clusterNetwork\t<[]Object>", "The address pools pod addresses come from (default 10.128.0.0/14, a /23 per")
	wantLines(t, "explain bmh.spec.bootMACAddress", k.must("explain", "bmh.spec.bootMACAddress"),
		"KIND:       BareMetalHost", "FIELD: bootMACAddress <string>", "The MAC address of the NIC the host boots from over the network.")
	wantLines(t, "explain cd.spec.platform.agentBareMetal", k.must("explain", "cd.spec.platform.agentBareMetal"),
		"KIND:       ClusterDeployment", "Hosts that booted a discovery image (Agents).", "agentSelector\t<Object> -required-")
	wantLines(t, "explain nmstateconfig.spec", k.must("explain", "nmstateconfig.spec"), "interfaces\t<[]Object>", "config\t<Object>")
	wantLines(t, "explain agent.status", k.must("explain", "agent.status"), "KIND:       Agent", "debugInfo\t<Object>", "inventory\t<Object>")
	wantLines(t, "explain agentserviceconfig.spec.osImages", k.must("explain", "agentserviceconfig.spec.osImages"),
		"FIELD: osImages <[]Object>", "openshiftVersion\t<string> -required-")
	wantLines(t, "explain secret", k.must("explain", "secret"), "KIND:       Secret", "VERSION:    v1",
		"stringData\t<map[string]string>", "type\t<string>")
	wantLines(t, "explain ns", k.must("explain", "ns.spec"), "KIND:       Namespace", "finalizers\t<[]string>")

	k.must("create", "namespace", "kni21")
	writeFile(t, k.home, "infraenv.yaml", "apiVersion: agent-install.openshift.io/v1beta1\nkind: InfraEnv\nmetadata:\n  name: kni21\n  namespace: kni21\n"+
		"spec:\n  pullSecretRef:\n    name: pull-secret\n  sshAuthorisedKey: ssh-ed25519 AAAA\n  proxy:\n    httpProxi: http://proxy:3128\n")
	ie := filepath.Join(k.home, "infraenv.yaml")
	k.fails(`Error from server (BadRequest): error when creating "`+ie+`": InfraEnv in version "v1beta1" cannot be handled as a InfraEnv: `+
		`strict decoding error: unknown field "spec.proxy.httpProxi", unknown field "spec.sshAuthorisedKey"`, "apply", "-f", ie)
	k.fails(`Error from server (NotFound): infraenvs.agent-install.openshift.io "kni21" not found`, "get", "infraenv", "kni21", "-n", "kni21")

	out, errOut, ok := k.run("apply", "--validate=warn", "-f", ie)
	if !ok {
		t.Fatalf("apply --validate=warn: %s%s", out, errOut)
	}
	wantLines(t, "apply --validate=warn", out, "infraenv.agent-install.openshift.io/kni21 created")
	wantLines(t, "apply --validate=warn warnings", errOut,
		`Warning: unknown field "spec.proxy.httpProxi"`, `Warning: unknown field "spec.sshAuthorisedKey"`)
	k.must("delete", "-f", ie)
	wantLines(t, "apply --validate=false", k.must("apply", "--validate=false", "-f", ie), "infraenv.agent-install.openshift.io/kni21 created")
	// What was let through is stored pruned of the unknown fields and
	// with the schema's defaults, as kube-apiserver stores a custom
	// resource.
	if got, want := k.must("get", "infraenv", "kni21", "-n", "kni21", "-o", "jsonpath={.spec}"),
		`{"cpuArchitecture":"x86_64","ipxeScriptType":"DiscoveryImageAlways","proxy":{},"pullSecretRef":{"name":"pull-secret"}}`; got != want {
		t.Errorf("the InfraEnv's spec as stored: %s, want %s", got, want)
	}

	// A change through apply's patch is checked too.
	writeFile(t, k.home, "infraenv.yaml", "apiVersion: agent-install.openshift.io/v1beta1\nkind: InfraEnv\nmetadata:\n  name: kni21\n  namespace: kni21\n"+
		"spec:\n  pullSecretRef:\n    name: pull-secret\n  cpuArchitecure: aarch64\n")
	k.fails(`Error from server (BadRequest): error when applying patch:`, "apply", "-f", ie)
	k.fails(`strict decoding error: unknown field "spec.cpuArchitecure"`, "apply", "-f", ie)

	writeFile(t, k.home, "aci.yaml", "apiVersion: extensions.hive.openshift.io/v1beta1\nkind: AgentClusterInstall\nmetadata:\n  name: kni21\n  namespace: kni21\n"+
		"spec:\n  clusterDeploymentRef:\n    name: kni21\n  holdInstallation: \"yes\"\n  networking:\n    clusterNetwork:\n    - cidr: 10.128.0.0/14\n      hostPrefx: 23\n"+
		"  provisionRequirements:\n    controlPlaneAgents: 1\n")
	aci := filepath.Join(k.home, "aci.yaml")
	k.fails(`The AgentClusterInstall "kni21" is invalid: spec.holdInstallation: Invalid value: "string": spec.holdInstallation in body must be of type boolean: "string"`,
		"apply", "--validate=false", "-f", aci)
	k.fails(`strict decoding error: unknown field "spec.networking.clusterNetwork[0].hostPrefx"`, "create", "-f", aci)

	writeFile(t, k.home, "aci.yaml", "apiVersion: extensions.hive.openshift.io/v1beta1\nkind: AgentClusterInstall\nmetadata:\n  name: kni21\n  namespace: kni21\n"+
		"spec:\n  clusterDeploymentRef:\n    name: kni21\n  networking:\n    networkType: OVN\n  provisionRequirements:\n    controlPlaneAgents: 1\n")
	k.fails(`The AgentClusterInstall "kni21" is invalid: spec.networking.networkType: Unsupported value: "OVN": supported values: `+
		`"OpenShiftSDN", "OVNKubernetes", "CiscoACI", "Cilium", "Calico", "None"`, "apply", "-f", aci)
	k.fails(`agentclusterinstalls.extensions.hive.openshift.io "kni21" not found`, "get", "aci", "kni21", "-n", "kni21")
}
