package cli_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
	"github.com/rackboot/rackboot/engine"
)

// create bmh takes seed 000's file (a Namespace, the BMC Secret and the
// BareMetalHost); get, describe and delete show and remove it. The
// password reaches the server sealed and is never printed.
func TestBareMetalHostCommands(t *testing.T) {
	r := newRig(t)
	res := r.run("create", "bmh", "-f", "testdata/sno1-bmh.yaml")
	if res.code != 0 || res.stdout != "baremetalhost/sno1 created\n" || !strings.Contains(res.stderr, "skipping Namespace/sno1") {
		t.Fatalf("create bmh: %+v", res)
	}
	r.srv.Store.Read(func(m *engine.Model) {
		b, ok := m.BareMetalHost("sno1")
		if !ok || b.BMC.CredentialsName != "sno1-bmc-secret" || !b.BMC.DisableCertificateVerification ||
			b.BootMACAddress != "94:40:c9:1f:bf:64" || b.RootDeviceHints == nil || b.RootDeviceHints.MinSizeGigabytes != 120 {
			t.Errorf("stored BMH = %+v", b)
		}
		s, ok := m.Secret("sno1-bmc-secret")
		if !ok || !engine.IsSealed(s.Data["password"]) || strings.Contains(string(s.Data["password"]), "calvin") {
			t.Errorf("credentials secret = %v", s)
		}
	})
	out := r.ok("get", "bmh")
	for _, want := range []string{"NAME", "sno1", "registering", "94:40:c9:1f:bf:64"} {
		if !strings.Contains(out, want) {
			t.Errorf("get bmh lacks %q:\n%s", want, out)
		}
	}
	out = r.ok("describe", "baremetalhost", "sno1")
	for _, want := range []string{"BMC address:         redfish-virtualmedia://10.0.0.5/redfish/v1/Systems/1",
		"Infra-env:           sno1", "TLS verification:    false", "bmac.agent-install.openshift.io/role=master",
		`Root device hints:   {"deviceName":"/dev/sda","minSizeGigabytes":120}`} {
		if !strings.Contains(out, want) {
			t.Errorf("describe bmh lacks %q:\n%s", want, out)
		}
	}
	if out := r.ok("get", "bmh", "sno1", "-o", "json"); !strings.Contains(out, `"kind": "BareMetalHost"`) {
		t.Errorf("get bmh -o json:\n%s", out)
	}
	if res := r.run("create", "bmh", "-f", "testdata/sno1-bmh.yaml"); res.code == 0 || !strings.Contains(res.stderr, "409") {
		t.Errorf("second create: %+v", res)
	}
	for _, res := range []struct{ args []string }{{[]string{"get", "bmh"}}, {[]string{"describe", "bmh", "sno1"}}} {
		all := r.run(res.args...)
		if strings.Contains(all.stdout+all.stderr, "calvin-Secret-1") {
			t.Errorf("%v printed the password", res.args)
		}
	}
	if out := r.ok("delete", "bmh", "sno1"); out != "baremetalhost/sno1 deleted\n" {
		t.Errorf("delete: %q", out)
	}
	if res := r.run("describe", "bmh", "sno1"); res.code != cli.ExitError || !strings.Contains(res.stderr, "404") {
		t.Errorf("describe after delete: %+v", res)
	}
	// Other resources still go to their own verbs.
	if res := r.run("get", "clusters"); res.code != 0 {
		t.Errorf("get clusters: %+v", res)
	}
}

// Fields of a metal3 manifest rackboot does not use are reported, not
// dropped silently; bootMode is one it uses.
func TestParseBMHManifestsUnknownFields(t *testing.T) {
	good, err := os.ReadFile("testdata/sno1-bmh.yaml")
	if err != nil {
		t.Fatal(err)
	}
	extra := strings.Replace(string(good), " online: true\n", " online: true\n bootMode: UEFISecureBoot\n preprovisioningNetworkDataName: sno1-nmstate\n image:\n  url: http://example.com/os.qcow2\n", 1)
	m, err := cli.ParseBMHManifests([]byte(extra))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"baremetalhost/sno1: spec.image"}
	if strings.Join(m.Unknown, "|") != strings.Join(want, "|") || m.Hosts[0].Spec.BootMode != "UEFISecureBoot" {
		t.Errorf("unknown = %q (want %q), bootMode %q", m.Unknown, want, m.Hosts[0].Spec.BootMode)
	}
	if m.Hosts[0].PreprovisioningNetworkData != nil {
		t.Errorf("network data without its secret in the file: %q", *m.Hosts[0].PreprovisioningNetworkData)
	}
	withNet := extra + "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: sno1-nmstate\nstringData:\n  nmstate: |\n    interfaces:\n    - name: eno1\n      type: ethernet\n      state: up\n"
	if m, err := cli.ParseBMHManifests([]byte(withNet)); err != nil || m.Hosts[0].PreprovisioningNetworkData == nil ||
		!strings.Contains(*m.Hosts[0].PreprovisioningNetworkData, "name: eno1") {
		t.Errorf("network data secret not attached: %+v, %v", m, err)
	}
	if m, _ := cli.ParseBMHManifests(good); len(m.Unknown) != 0 {
		t.Errorf("the seed file reports unknown fields %q", m.Unknown)
	}
}

func TestParseBMHManifestsRejects(t *testing.T) {
	good, err := os.ReadFile("testdata/sno1-bmh.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := cli.ParseBMHManifests(good)
	if err != nil || len(m.Hosts) != 1 || m.Hosts[0].Credentials == nil ||
		m.Hosts[0].Credentials.Username != "root" || m.Hosts[0].Credentials.Password != "calvin-Secret-1" {
		t.Fatalf("seed file: %+v, %v", m, err)
	}
	stringData := strings.Replace(string(good), "data:\n  username: cm9vdA==\n  password: Y2FsdmluLVNlY3JldC0x",
		"stringData:\n  username: admin\n  password: pw", 1)
	if m, err := cli.ParseBMHManifests([]byte(stringData)); err != nil || m.Hosts[0].Credentials.Username != "admin" {
		t.Errorf("stringData: %+v %v", m, err)
	}
	for name, doc := range map[string]string{
		"empty":          "",
		"no bmh":         "kind: Secret\nmetadata: {name: x}\n",
		"not yaml":       "kind: [",
		"no kind":        "metadata: {name: x}\n",
		"list":           "- a\n- b\n",
		"no name":        "kind: BareMetalHost\nspec: {online: true}\n",
		"wrong type":     "kind: BareMetalHost\nmetadata: {name: x}\nspec: {online: [1]}\n",
		"bad base64":     strings.Replace(string(good), "Y2FsdmluLVNlY3JldC0x", "%%%not-base64%%%", 1),
		"no password":    strings.Replace(string(good), "  password: Y2FsdmluLVNlY3JldC0x\n", "", 1),
		"non-string key": "kind: BareMetalHost\nmetadata: {name: x}\n? [1, 2]\n: v\n",
	} {
		_, err := cli.ParseBMHManifests([]byte(doc))
		if !errors.Is(err, cli.ErrManifest) {
			t.Errorf("%s: %v, want ErrManifest", name, err)
		}
		if err != nil && strings.Contains(err.Error(), "calvin") {
			t.Errorf("%s: the error shows the password: %v", name, err)
		}
	}
	// A file without the Secret is fine: rackbootd may hold it already.
	noSecret := good[strings.Index(string(good), "apiVersion: metal3.io"):]
	if m, err := cli.ParseBMHManifests(noSecret); err != nil || m.Hosts[0].Credentials != nil {
		t.Errorf("without the Secret: %+v %v", m, err)
	}
}

// Manifest files come from users: any input parses or fails with
// ErrManifest, without panicking, and never shows a secret in the error.
func FuzzParseBMHManifests(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.yaml")
	for _, s := range seeds {
		b, _ := os.ReadFile(s)
		f.Add(b)
	}
	f.Add([]byte(`{"kind":"BareMetalHost","metadata":{"name":"j"},"spec":{"bmc":{"address":"redfish://h"}}}`))
	f.Add([]byte("kind: Secret\nmetadata: {name: s}\ndata: {username: eA==, password: c2VjcmV0LXZhbHVl}\n---\nkind: BareMetalHost\nmetadata: {name: b}\nspec: {bmc: {credentialsName: s}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := cli.ParseBMHManifests(data)
		if err != nil {
			if !errors.Is(err, cli.ErrManifest) {
				t.Errorf("error not wrapping ErrManifest: %v", err)
			}
			if strings.Contains(err.Error(), "secret-value") {
				t.Errorf("error shows a password: %v", err)
			}
			return
		}
		if len(m.Hosts) == 0 {
			t.Error("success without a host")
		}
	})
}
