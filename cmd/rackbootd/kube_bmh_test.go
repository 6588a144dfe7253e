package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/rackboot/rackboot/testbed/redfish"
)

// cdMachine is the machine behind the Redfish emulator: it keeps how it
// was last started.
type cdMachine struct {
	mu    sync.Mutex
	on    bool
	start redfish.StartOptions
}

func (m *cdMachine) Running(context.Context) bool { m.mu.Lock(); defer m.mu.Unlock(); return m.on }

func (m *cdMachine) Start(_ context.Context, o redfish.StartOptions) error {
	m.mu.Lock()
	m.on, m.start = true, o
	m.mu.Unlock()
	return nil
}

func (m *cdMachine) Stop(context.Context) error {
	m.mu.Lock()
	m.on = false
	m.mu.Unlock()
	return nil
}
func (m *cdMachine) Shutdown(ctx context.Context) error         { return m.Stop(ctx) }
func (m *cdMachine) Reset(context.Context) error                { return nil }
func (m *cdMachine) ChangeMedium(context.Context, string) error { return nil }

func (m *cdMachine) started() redfish.StartOptions {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.start
}

// A BareMetalHost applied with kubectl, labelled with an InfraEnv and
// naming a Redfish virtual-media BMC (the testbed's emulator) and its
// credentials Secret: rackbootd inserts the InfraEnv's discovery ISO and
// boots the machine from it; the BMH shows upstream's BMAC fields
// (spec.image = isoDownloadURL, live-iso; inspect disabled) and metal3's
// state. When the machine's agent registers, its Agent is labelled with
// the BMH and approved with the BMH's hostname and role annotations and
// the disk of its rootDeviceHints, and the BMH gets the hardwaredetails
// annotation; kubectl delete removes rackboot's host.
func TestKubectlBareMetalHost(t *testing.T) {
	needKubectl(t)
	d, _ := startISODaemon(t)
	k := kubeFor(t, d)

	m := &cdMachine{}
	svc, err := redfish.New(redfish.Config{Username: "admin", Password: "s3cret-BMC", MediaDir: t.TempDir()},
		redfish.System{ID: "vm1", Name: "vm1", UUID: "d1e5a3c0-0000-4000-8000-000000000001", MAC: "52:54:00:12:34:01", UEFI: true, Machine: m})
	if err != nil {
		t.Fatal(err)
	}
	bmc := httptest.NewTLSServer(svc)
	t.Cleanup(bmc.Close)

	k.must("create", "namespace", "kni21")
	ps := writeFile(t, k.home, "pull-secret.json", `{"auths":{"quay.io":{"auth":"dTpw"}}}`)
	k.must("create", "secret", "generic", "pull-secret", "-n", "kni21", "--from-file=.dockerconfigjson="+ps, "--type=kubernetes.io/dockerconfigjson")
	k.must("create", "secret", "generic", "bmc-secret", "-n", "kni21", "--from-literal=username=admin", "--from-literal=password=s3cret-BMC")
	manifests := writeFile(t, k.home, "bmh.yaml", `apiVersion: agent-install.openshift.io/v1beta1
kind: InfraEnv
metadata:
  name: kni21
  namespace: kni21
spec:
  pullSecretRef:
    name: pull-secret
---
apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: master-0
  namespace: kni21
  labels:
    infraenvs.agent-install.openshift.io: kni21
  annotations:
    bmac.agent-install.openshift.io/hostname: master-0.kni21.example.com
    bmac.agent-install.openshift.io/role: master
spec:
  online: true
  bootMACAddress: "52:54:00:12:34:01"
  bootMode: UEFI
  rootDeviceHints:
    deviceName: /dev/vda
  bmc:
    address: redfish-virtualmedia://`+strings.TrimPrefix(bmc.URL, "https://")+`/redfish/v1/Systems/vm1
    credentialsName: bmc-secret
    disableCertificateVerification: true
`)
	k.must("apply", "-f", manifests)
	k.must("wait", "--for=jsonpath={.status.provisioning.state}=provisioning", "bmh/master-0", "-n", "kni21", "--timeout=60s")
	k.must("wait", "--for=jsonpath={.spec.image.diskFormat}=live-iso", "bmh/master-0", "-n", "kni21", "--timeout=60s")
	wantLines(t, "get bmh", k.must("get", "bmh", "-n", "kni21"), "NAME       STATE          CONSUMER   ONLINE   ERROR", "master-0   provisioning              true")
	if got := k.must("get", "bmh", "master-0", "-n", "kni21", "-o", "jsonpath={.metadata.generation} {.status.observedGeneration}"); got != "1 1" {
		t.Errorf("generation and observedGeneration: %q", got)
	}
	isoURL := k.must("get", "infraenv", "kni21", "-n", "kni21", "-o", "jsonpath={.status.isoDownloadURL}")
	if got := k.must("get", "bmh", "master-0", "-n", "kni21", "-o", `jsonpath={.spec.image.url} {.spec.image.diskFormat} {.metadata.annotations.inspect\.metal3\.io}`); got != isoURL+" live-iso disabled" || isoURL == "" {
		t.Errorf("the BMH's image and inspect annotation: %q (isoDownloadURL %q)", got, isoURL)
	}
	if st := m.started(); st.Boot != redfish.TargetCd || !st.Once || st.CD == "" {
		t.Errorf("the machine was started with %+v, want a one-time boot from the inserted ISO", st)
	} else if b, err := os.ReadFile(st.CD); err != nil || string(b[0x8001:0x8006]) != "CD001" {
		t.Errorf("the inserted medium is not the discovery ISO: %v", err)
	}

	// The machine's agent registers: the Agent and the BMH are linked.
	ipxe := k.must("get", "infraenv", "kni21", "-n", "kni21", "-o", "jsonpath={.status.bootArtifacts.ipxeScript}")
	u, err := url.Parse(ipxe)
	if err != nil {
		t.Fatal(err)
	}
	ieID := strings.Split(strings.TrimPrefix(u.Path, apiBase+"/infra-envs/"), "/")[0]
	agent := "X-Secret-Key: " + u.Query().Get("api_key")
	const hostID = "5eed0000-0000-4000-8000-0000000000b1"
	d.doJSON("POST", "/infra-envs/"+ieID+"/hosts", agent, `{"host_id":"`+hostID+`"}`, 201, nil)
	d.answerSteps(agent, "/infra-envs/"+ieID+"/hosts/"+hostID)
	k.must("wait", "--for=jsonpath={.metadata.labels.agent-install\\.openshift\\.io/bmh}=master-0", "agent/"+hostID, "-n", "kni21", "--timeout=60s")
	k.must("wait", "--for=jsonpath={.spec.installation_disk_id}=/dev/disk/by-path/pci-0000:00:04.0", "agent/"+hostID, "-n", "kni21", "--timeout=60s")
	if got := k.must("get", "agent", hostID, "-n", "kni21", "-o", "jsonpath={.spec.approved} {.spec.hostname} {.spec.role}"); got != "true master-0.kni21.example.com master" {
		t.Errorf("the Agent's spec from the BMH: %q", got)
	}
	k.must("wait", "--for=jsonpath={.status.provisioning.state}=provisioned", "bmh/master-0", "-n", "kni21", "--timeout=60s")
	if got := k.must("get", "bmh", "master-0", "-n", "kni21", "-o", `jsonpath={.metadata.annotations.inspect\.metal3\.io/hardwaredetails}`); !strings.Contains(got, `"mac":"52:54:00:12:34:01"`) {
		t.Errorf("hardwaredetails: %q", got)
	}

	k.must("delete", "bmh", "master-0", "-n", "kni21")
	pollUntil(t, func() (bool, string) {
		code, body := d.call("GET", "/baremetal-hosts/kni21.master-0", "Authorization: Bearer "+d.adminToken(), "")
		return code == http.StatusNotFound, body
	})
}
