package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/boot/coreos/coreostest"
)

// getISO fetches a URL (a discovery ISO's): its status and bytes.
func getISO(t *testing.T, u string) (int, []byte) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, b
}

// An InfraEnv applied with kubectl, on an appliance whose image set has a
// base ISO: its status.isoDownloadURL and bootArtifacts.ipxeScript are
// served; an NMStateConfig its nmStateConfigLabelSelector selects, added
// later, regenerates the image (a new isoDownloadURL and createdTime, an
// ISO with other bytes, the infra-env's static network through the REST
// API); a spec change reaches the infra-env and moves observedGeneration;
// a clusterRef change is refused as upstream's webhook refuses it;
// deleting the InfraEnv removes the infra-env and its ISO.
func TestKubectlInfraEnvImage(t *testing.T) {
	needKubectl(t)
	d, _ := startISODaemon(t)
	k := kubeFor(t, d)

	k.must("create", "namespace", "kni21")
	ps := writeFile(t, k.home, "pull-secret.json", `{"auths":{"quay.io":{"auth":"dTpw"}}}`)
	k.must("create", "secret", "generic", "pull-secret", "-n", "kni21", "--from-file=.dockerconfigjson="+ps, "--type=kubernetes.io/dockerconfigjson")
	ie := writeFile(t, k.home, "infraenv.yaml", `apiVersion: agent-install.openshift.io/v1beta1
kind: InfraEnv
metadata:
  name: kni21
  namespace: kni21
spec:
  pullSecretRef:
    name: pull-secret
  nmStateConfigLabelSelector:
    matchLabels:
      infraenv: kni21
`)
	k.must("apply", "-f", ie)
	k.must("wait", "--for=condition=ImageCreated", "infraenv/kni21", "-n", "kni21", "--timeout=30s")
	get := func(path string) string {
		return k.must("get", "infraenv", "kni21", "-n", "kni21", "-o", "jsonpath={"+path+"}")
	}
	uid := get(".metadata.uid")
	first := get(".status.isoDownloadURL")
	if !strings.HasPrefix(first, "http://"+d.httpAddr+"/images/"+uid+"/") || get(".status.observedGeneration") != "1" {
		t.Fatalf("isoDownloadURL %q, observedGeneration %q", first, get(".status.observedGeneration"))
	}
	code, img1 := getISO(t, first)
	if code != http.StatusOK || string(img1[0x8001:0x8006]) != "CD001" {
		t.Fatalf("GET isoDownloadURL: %d", code)
	}
	if script := k.httpGet(get(".status.bootArtifacts.ipxeScript")); !strings.HasPrefix(script, "#!ipxe") {
		t.Errorf("bootArtifacts.ipxeScript serves %q", script)
	}

	// An NMStateConfig added later: a new image, with its static network.
	nms := writeFile(t, k.home, "nmstate.yaml", `apiVersion: agent-install.openshift.io/v1beta1
kind: NMStateConfig
metadata:
  name: master-0
  namespace: kni21
  labels:
    infraenv: kni21
spec:
  config:
    interfaces:
      - name: eno1
        type: ethernet
        state: up
        ipv4:
          enabled: true
          dhcp: false
          address:
            - ip: 192.168.1.100
              prefix-length: 24
  interfaces:
    - name: eno1
      macAddress: "00:11:22:33:44:55"
`)
	k.must("apply", "-f", nms)
	var second string
	pollUntil(t, func() (bool, string) {
		second = get(".status.isoDownloadURL")
		return second != "" && second != first && get(".status.createdTime") != "", "isoDownloadURL " + second
	})
	code, img2 := getISO(t, second)
	if code != http.StatusOK || len(img2) != len(img1) || string(img2) == string(img1) {
		t.Errorf("the regenerated ISO: %d, %d bytes, same as before: %v", code, len(img2), string(img2) == string(img1))
	}
	if !strings.Contains(staticNetwork(t, d, uid), "192.168.1.100/24") {
		t.Error("the discovery Ignition has no keyfile of the NMStateConfig")
	}

	// A spec change: the infra-env has it, observedGeneration follows.
	k.must("-n", "kni21", "patch", "infraenv", "kni21", "--type", "merge", "-p",
		`{"spec":{"sshAuthorizedKey":"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGv0bm9vbmVzaG9tZWtleXRoaXNpc2F0ZXN0a2V5 k2","additionalNTPSources":["ntp.example.com"]}}`)
	k.must("wait", "--for=jsonpath={.status.observedGeneration}=2", "infraenv/kni21", "-n", "kni21", "--timeout=30s")
	_, body := d.call("GET", "/infra-envs/"+uid, "Authorization: Bearer "+d.adminToken(), "")
	wantLines(t, "the infra-env after the spec change (REST API)", body, "k2", "ntp.example.com")
	if third := get(".status.isoDownloadURL"); third == second {
		t.Errorf("isoDownloadURL unchanged after a spec change: %s", third)
	}

	k.fails(`admission webhook "infraenvvalidators.admission.agentinstall.openshift.io" denied the request: Attempted to change Spec.ClusterRef which is immutable after InfraEnv creation.`,
		"-n", "kni21", "patch", "infraenv", "kni21", "--type", "merge", "-p", `{"spec":{"clusterRef":{"name":"test","namespace":"kni21"}}}`)

	// Deleting the NMStateConfig and then the InfraEnv.
	k.must("delete", "-f", nms)
	pollUntil(t, func() (bool, string) {
		keyfiles := staticNetwork(t, d, uid)
		return !strings.Contains(keyfiles, "192.168.1.100/24"), keyfiles
	})
	k.must("delete", "-f", ie)
	pollUntil(t, func() (bool, string) {
		code, _ := d.call("GET", "/infra-envs/"+uid, "Authorization: Bearer "+d.adminToken(), "")
		return code == http.StatusNotFound, fmt.Sprint("GET the infra-env: ", code)
	})
	if code, _ := getISO(t, second); code != http.StatusNotFound {
		t.Errorf("the ISO of the deleted InfraEnv: %d", code)
	}
}

// staticNetwork is the text of the files of infra-env id's discovery
// Ignition (downloads/files, the REST API) under /etc/assisted/network.
func staticNetwork(t *testing.T, d *testDaemon, id string) string {
	t.Helper()
	code, body := d.call("GET", "/infra-envs/"+id+"/downloads/files?file_name=discovery.ign", "Authorization: Bearer "+d.adminToken(), "")
	if code != http.StatusOK {
		t.Fatalf("discovery.ign: %d %s", code, body)
	}
	var out strings.Builder
	for p, c := range decodeIgnition(t, []byte(body)) {
		if strings.HasPrefix(p, "/etc/assisted/network/") {
			out.WriteString(p + "\n" + c + "\n")
		}
	}
	return out.String()
}

// An InfraEnv of a CoreOS image set: its status.bootArtifacts kernel,
// initrd, rootfs and ipxeScript and its isoDownloadURL are all set and
// served: the live ISO's kernel, its initramfs followed by the
// InfraEnv's discovery config, the live rootfs, the iPXE script and the
// ISO. A URL with another token is refused.
func TestKubectlInfraEnvBootArtifacts(t *testing.T) {
	needKubectl(t)
	m := coreostest.NewMirror(t)
	d := newTestDaemon(t, freePort(t, "tcp"), freePort(t, "udp"))
	d.writeConfig(d.liveConfig(m, "x86_64"))
	d.start(nil)
	d.waitNote("READY=1")
	k := kubeFor(t, d)
	k.must("create", "namespace", "kni21")
	ps := writeFile(t, k.home, "pull-secret.json", `{"auths":{"quay.io":{"auth":"dTpw"}}}`)
	k.must("create", "secret", "generic", "pull-secret", "-n", "kni21", "--from-file=.dockerconfigjson="+ps, "--type=kubernetes.io/dockerconfigjson")
	k.must("apply", "-f", writeFile(t, k.home, "infraenv.yaml", "apiVersion: agent-install.openshift.io/v1beta1\nkind: InfraEnv\n"+
		"metadata:\n  name: kni21\n  namespace: kni21\nspec:\n  pullSecretRef:\n    name: pull-secret\n"))
	k.must("wait", "--for=condition=ImageCreated", "infraenv/kni21", "-n", "kni21", "--timeout=30s")
	get := func(path string) string {
		return k.must("get", "infraenv", "kni21", "-n", "kni21", "-o", "jsonpath={"+path+"}")
	}
	uid := get(".metadata.uid")
	kernel, initrd, rootfs := get(".status.bootArtifacts.kernel"), get(".status.bootArtifacts.initrd"), get(".status.bootArtifacts.rootfs")
	if !strings.HasPrefix(kernel, "http://"+d.httpAddr+"/images/"+uid+"/") || rootfs != "http://"+d.httpAddr+"/images/fcos/rootfs.img" {
		t.Fatalf("bootArtifacts: kernel %q initrd %q rootfs %q", kernel, initrd, rootfs)
	}
	if got := k.httpGet(kernel); got != string(m.Kernel["x86_64"]) {
		t.Errorf("kernel: %d bytes, not the live ISO's (%d)", len(got), len(m.Kernel["x86_64"]))
	}
	files := ignitionFiles(t, []byte(k.httpGet(initrd)), string(m.Initrd["x86_64"]))
	if ac, ok := agentConfOf(t, files); !ok || ac.InfraEnvID != uid {
		t.Errorf("the initrd's config.ign: %+v %v", ac, ok)
	}
	if got := k.httpGet(rootfs); got != string(m.Rootfs["x86_64"]) {
		t.Errorf("rootfs: %d bytes, want %d", len(got), len(m.Rootfs["x86_64"]))
	}
	if script := k.httpGet(get(".status.bootArtifacts.ipxeScript")); !strings.HasPrefix(script, "#!ipxe") {
		t.Errorf("ipxeScript serves %q", script)
	}
	if code, iso := getISO(t, get(".status.isoDownloadURL")); code != http.StatusOK || len(iso) == 0 {
		t.Errorf("isoDownloadURL: %d", code)
	}
	parts := strings.Split(kernel, "/")
	parts[len(parts)-3] = "k1.0.forged"
	if code, _ := getISO(t, strings.Join(parts, "/")); code != http.StatusForbidden {
		t.Errorf("a forged token: %d, want 403", code)
	}
}
