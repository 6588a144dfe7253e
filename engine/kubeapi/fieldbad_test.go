package kubeapi_test

import (
	"strings"
	"testing"
)

const (
	acisPath    = "/apis/extensions.hive.openshift.io/v1beta1/namespaces/ns/agentclusterinstalls"
	nmstatePath = "/apis/agent-install.openshift.io/v1beta1/namespaces/ns/nmstateconfigs"
	bmhPath     = "/apis/metal3.io/v1alpha1/namespaces/ns/baremetalhosts"
)

func aci(networking string) string {
	return `{"apiVersion":"extensions.hive.openshift.io/v1beta1","kind":"AgentClusterInstall","metadata":{"name":"c"},` +
		`"spec":{"clusterDeploymentRef":{"name":"c"},"provisionRequirements":{"controlPlaneAgents":1},"networking":` + networking + `}}`
}

func nmstate(ifaces string) string {
	return nmstateWith(`{"interfaces":[]}`, ifaces)
}

func nmstateWith(config, ifaces string) string {
	return `{"apiVersion":"agent-install.openshift.io/v1beta1","kind":"NMStateConfig","metadata":{"name":"n"},"spec":{"config":` + config + `,"interfaces":` + ifaces + `}}`
}

const eth0 = `[{"name":"eth0","macAddress":"52:54:00:00:00:01"}]`

func bmh(mac string) string {
	return `{"apiVersion":"metal3.io/v1alpha1","kind":"BareMetalHost","metadata":{"name":"h"},` +
		`"spec":{"online":true,"bootMACAddress":"` + mac + `","bmc":{"address":"redfish://10.0.0.1/redfish/v1/Systems/1","credentialsName":"bmc"}}}`
}

// An address the controllers could not use (a CIDR of AgentClusterInstall
// networking, an NMStateConfig interface's or a BareMetalHost's MAC) and
// a list or number out of its bounds are 422 Invalid with the field's
// path, worded as kube-apiserver's CRD validation, whatever the
// fieldValidation directive; nothing is written.
func TestInvalidAddressesRefused(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	before := f.index()
	for name, tc := range map[string]struct{ path, body, want string }{
		"cluster network": {acisPath, aci(`{"clusterNetwork":[{"cidr":"10.128.0.0/33","hostPrefix":23}]}`),
			`AgentClusterInstall.extensions.hive.openshift.io \"c\" is invalid: spec.networking.clusterNetwork[0].cidr: Invalid value: \"10.128.0.0/33\": ` +
				`spec.networking.clusterNetwork[0].cidr in body must be of type cidr: \"10.128.0.0/33\"`},
		"service network": {acisPath, aci(`{"serviceNetwork":["172.30.0.0/16","fd02::/1x"]}`),
			`spec.networking.serviceNetwork[1]: Invalid value: \"fd02::/1x\": spec.networking.serviceNetwork[1] in body must be of type cidr`},
		"machine network": {acisPath, aci(`{"machineNetwork":[{"cidr":"192.168.1.0"}]}`),
			`spec.networking.machineNetwork[0].cidr: Invalid value: \"192.168.1.0\"`},
		"too many vips": {acisPath, strings.Replace(aci(`{}`), `"networking"`, `"apiVIPs":["10.0.0.1","10.0.0.2","fd00::1"],"networking"`, 1),
			`spec.apiVIPs: Too many: 3: must have at most 2 items`},
		"negative workers": {acisPath, strings.Replace(aci(`{}`), `"controlPlaneAgents":1`, `"controlPlaneAgents":3,"workerAgents":-1`, 1),
			`spec.provisionRequirements.workerAgents: Invalid value: -1: spec.provisionRequirements.workerAgents in body should be greater than or equal to 0`},
		"nmstate mac": {nmstatePath, nmstate(`[{"name":"eth0","macAddress":"52:54:00:zz:00:01"}]`),
			`NMStateConfig.agent-install.openshift.io \"n\" is invalid: [spec.interfaces[0].macAddress: Invalid value: \"52:54:00:zz:00:01\": ` +
				`spec.interfaces[0].macAddress in body must be of type mac: \"52:54:00:zz:00:01\", spec.interfaces[0].macAddress: Invalid value: ` +
				`\"52:54:00:zz:00:01\": spec.interfaces[0].macAddress in body should match '^([0-9A-Fa-f]{2}[:]){5}([0-9A-Fa-f]{2})$']`},
		"nmstate route": {nmstatePath, nmstateWith(`{"routes":{"config":[{"destination":"10.0.0.0/33","next-hop-address":"10.0.0.1"}]}}`, eth0),
			`spec.config.routes.config[0].destination: Invalid value: \"10.0.0.0/33\": spec.config.routes.config[0].destination in body must be of type ip-or-cidr`},
		"nmstate address": {nmstatePath, nmstateWith(`{"interfaces":[{"name":"eth0","type":"ethernet","ipv4":{"address":[{"ip":"192.168.1.300","prefix-length":24}]}}]}`, eth0),
			`spec.config.interfaces[0].ipv4.address[0].ip: Invalid value: \"192.168.1.300\": spec.config.interfaces[0].ipv4.address[0].ip in body must be of type ip`},
		"nmstate prefix": {nmstatePath, nmstateWith(`{"interfaces":[{"name":"eth0","ipv4":{"address":[{"ip":"192.168.1.3","prefix-length":33}]}}]}`, eth0),
			`spec.config.interfaces[0].ipv4.address[0].prefix-length: Invalid value: 33: spec.config.interfaces[0].ipv4.address[0].prefix-length in body should be less than or equal to 32`},
		"nmstate dns": {nmstatePath, nmstateWith(`{"dns-resolver":{"config":{"server":["1.2.3.x"]}}}`, eth0),
			`spec.config.dns-resolver.config.server[0]: Invalid value: \"1.2.3.x\"`},
		"api vip": {acisPath, strings.Replace(aci(`{}`), `"networking"`, `"apiVIPs":["10.0.0.256"],"networking"`, 1),
			`spec.apiVIPs[0]: Invalid value: \"10.0.0.256\": spec.apiVIPs[0] in body must be of type ip`},
		"nmstate no interfaces": {nmstatePath, nmstate(`[]`),
			`spec.interfaces: Invalid value: 0: spec.interfaces in body should have at least 1 items`},
		"bmh mac": {bmhPath, bmh("52:54:00:00:00:01:02"),
			`BareMetalHost.metal3.io \"h\" is invalid: spec.bootMACAddress: Invalid value: \"52:54:00:00:00:01:02\": spec.bootMACAddress in body must be of type mac`},
	} {
		for _, v := range []string{"Strict", "Ignore"} {
			code, body, _ := f.send("POST", tc.path+"?fieldValidation="+v, "application/json", tc.body)
			if code != 422 || !strings.Contains(body, tc.want) || !strings.Contains(body, `"reason":"Invalid"`) {
				t.Errorf("%s (%s): %d %s, want 422 with %s", name, v, code, body, tc.want)
			}
		}
	}
	if after := f.index(); after != before {
		t.Errorf("refused requests moved the log from %d to %d", before, after)
	}
	// The same objects with good values are written.
	for name, tc := range map[string]struct{ path, body string }{
		"aci": {acisPath, aci(`{"clusterNetwork":[{"cidr":"10.128.0.0/14","hostPrefix":23}],"serviceNetwork":["172.30.0.0/16","fd02::/112"],"machineNetwork":[{"cidr":"192.168.1.0/24"}]}`)},
		"nmstate": {nmstatePath, nmstateWith(`{"interfaces":[{"name":"eth0","type":"ethernet","state":"up","ipv4":{"enabled":true,"dhcp":false,`+
			`"address":[{"ip":"192.168.1.3","prefix-length":24}]},"ipv6":{"enabled":true,"address":[{"ip":"fd00::3","prefix-length":64}]},"mtu":9000}],`+
			`"routes":{"config":[{"destination":"0.0.0.0/0","next-hop-address":"192.168.1.1","next-hop-interface":"eth0"},{"destination":"10.0.0.1"}]},`+
			`"dns-resolver":{"config":{"server":["192.168.1.1","fd00::1"]}}}`, `[{"name":"eth0","macAddress":"52:54:00:AA:00:01"}]`)},
		"bmh": {bmhPath, bmh("52:54:00:aa:00:01")},
	} {
		if code, body, _ := f.send("POST", tc.path+"?fieldValidation=Strict", "application/json", tc.body); code != 201 {
			t.Errorf("%s: %d %s, want 201", name, code, body)
		}
	}
}

// The v1 kinds are checked too: an unknown top-level field of a Secret is
// refused under Strict, as kube-apiserver refuses it.
func TestCoreKindsStrict(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	before := f.index()
	code, body, _ := f.send("POST", "/api/v1/namespaces/ns/secrets?fieldValidation=Strict", "application/json",
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringdata":{"k":"v"}}`)
	if want := `Secret in version \"v1\" cannot be handled as a Secret: strict decoding error: unknown field \"stringdata\"`; code != 400 || !strings.Contains(body, want) {
		t.Errorf("secret: %d %s, want 400 with %s", code, body, want)
	}
	// A Secret's value of the wrong type is named by its type, never shown.
	code, body, _ = f.send("POST", "/api/v1/namespaces/ns/secrets", "application/json",
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"password":["hunter2"]}}`)
	if want := `Secret \"s\" is invalid: stringData.password: Invalid value: \"array\": stringData.password in body must be of type string: \"array\"`; code != 422 || !strings.Contains(body, want) || strings.Contains(body, "hunter2") {
		t.Errorf("secret value: %d %s, want 422 with %s and not the value", code, body, want)
	}
	code, body, _ = f.send("POST", "/api/v1/namespaces/ns/configmaps?fieldValidation=Strict", "application/json",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":1}}`)
	if want := `ConfigMap \"c\" is invalid: data.k: Invalid value: \"integer\": data.k in body must be of type string: \"integer\"`; code != 422 || !strings.Contains(body, want) {
		t.Errorf("configmap: %d %s, want 422 with %s", code, body, want)
	}
	if after := f.index(); after != before {
		t.Errorf("refused requests moved the log from %d to %d", before, after)
	}
}

// Several invalid fields are named in the order of their paths, every
// time (the object's keys come in map order).
func TestInvalidCausesInPathOrder(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	want := `is invalid: [spec.networking.clusterNetwork[0].cidr: Invalid value: \"a\"` +
		`: spec.networking.clusterNetwork[0].cidr in body must be of type cidr: \"a\", ` +
		`spec.networking.machineNetwork[0].cidr: Invalid value: \"b\": spec.networking.machineNetwork[0].cidr in body must be of type cidr: \"b\", ` +
		`spec.networking.serviceNetwork[0]: Invalid value: \"c\": spec.networking.serviceNetwork[0] in body must be of type cidr: \"c\"]`
	for range 20 {
		code, body, _ := f.send("POST", acisPath, "application/json",
			aci(`{"serviceNetwork":["c"],"machineNetwork":[{"cidr":"b"}],"clusterNetwork":[{"cidr":"a"}]}`))
		if code != 422 || !strings.Contains(body, want) {
			t.Fatalf("%d %s, want 422 with %s", code, body, want)
		}
	}
}

// The status the server keeps on a write to the object is not checked
// (it is not the client's); a write through /status is.
func TestKeptStatusNotChecked(t *testing.T) {
	f := newFixture(t, 0)
	f.setup()
	f.createAgent("a")
	code, body, _ := f.send("PATCH", agentsPath+"/a?fieldValidation=Strict", "application/merge-patch+json",
		`{"spec":{"approved":true},"status":{"role":7}}`)
	if code != 200 {
		t.Errorf("patch with a status of the wrong type: %d %s, want 200 (the status is kept)", code, body)
	}
	code, body, _ = f.send("PATCH", agentsPath+"/a/status?fieldValidation=Strict", "application/merge-patch+json", `{"status":{"role":7}}`)
	if want := `status.role: Invalid value: \"integer\": status.role in body must be of type string`; code != 422 || !strings.Contains(body, want) {
		t.Errorf("/status: %d %s, want 422 with %s", code, body, want)
	}
}
