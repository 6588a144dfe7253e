package acm_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bmhctl"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/testbed/redfish"
)

// machine is the machine behind the testbed's Redfish emulator: a power
// switch.
type machine struct {
	mu sync.Mutex
	on bool
}

func (m *machine) set(on bool) error { m.mu.Lock(); m.on = on; m.mu.Unlock(); return nil }

func (m *machine) Running(context.Context) bool { m.mu.Lock(); defer m.mu.Unlock(); return m.on }

func (m *machine) Start(context.Context, redfish.StartOptions) error { return m.set(true) }
func (m *machine) Stop(context.Context) error                        { return m.set(false) }
func (m *machine) Shutdown(context.Context) error                    { return m.set(false) }
func (m *machine) Reset(context.Context) error                       { return nil }
func (m *machine) ChangeMedium(context.Context, string) error        { return nil }

// redfishBMC serves the testbed's Redfish emulator (HTTPS, admin/s3cret)
// for one machine of MAC 52:54:00:00:00:01 and returns its host:port.
func redfishBMC(t *testing.T) string {
	t.Helper()
	svc, err := redfish.New(redfish.Config{Username: "admin", Password: "s3cret", MediaDir: t.TempDir()},
		redfish.System{ID: "vm1", Name: "vm1", UUID: "d1e5a3c0-0000-4000-8000-000000000001", MAC: "52:54:00:00:00:01", UEFI: true, Machine: &machine{}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(svc)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "https://")
}

func kubeBMH(m *engine.Model) (engine.Object, map[string]any) {
	o, _ := m.Object(engine.ObjectRef{Group: "metal3.io", Kind: "BareMetalHost", Namespace: "ns", Name: "bmh0"}.Key())
	var b map[string]any
	_ = json.Unmarshal(o.Body, &b)
	return o, b
}

func dig(v any, path ...string) any {
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	return v
}

// A BareMetalHost object labelled with an InfraEnv becomes a domain
// BareMetalHost (its BMC credentials opened from the Secret it names,
// its bmac annotations, the infra-env) that the BMH controller drives;
// the object gets upstream's BMAC fields: spec.image (the InfraEnv's ISO,
// live-iso) and inspect.metal3.io: disabled, and metal3's status (the
// BMC's failure as errorType). When the host with its boot MAC registers
// and is paired, its Agent is labelled with the BMH, its spec has the
// BMH's hostname, role and the disk of its rootDeviceHints, and the BMH
// gets the hardwaredetails annotation from the Agent's inventory. Its
// preprovisioningNetworkDataName Secret becomes a static network config of
// the infra-env.
// Deleting the object deletes the domain BareMetalHost.
func TestBareMetalHostFromKube(t *testing.T) {
	s, sealer := isoEnvSealer(t)
	ctl, err := bmhctl.New(bmhctl.Options{Store: s, Unseal: sealer.Open, Backoff: time.Hour, MaxBackoff: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { ctl.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	put(t, s, "agent-install.openshift.io", "InfraEnv", "ns", "ie", uid, `{"spec":{"pullSecretRef":{"name":"ps"}}}`)
	ref := engine.ObjectRef{Kind: "Secret", Namespace: "ns", Name: "bmc"}
	data := map[string]string{}
	for k, v := range map[string]string{"username": "admin", "password": "s3cret"} {
		sealed, _ := sealer.Seal(ref.SealName(), k, []byte(v))
		data[k] = base64.StdEncoding.EncodeToString(sealed)
	}
	body, _ := json.Marshal(map[string]any{"data": data})
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{ObjectRef: ref, UID: "b", Body: body}})
	const netdata = "interfaces:\n- name: eth0\n  type: ethernet\n  state: up\n  ipv4:\n    enabled: true\n    dhcp: true\n"
	nref := engine.ObjectRef{Kind: "Secret", Namespace: "ns", Name: "netdata"}
	sealed, _ := sealer.Seal(nref.SealName(), "nmstate", []byte(netdata))
	body, _ = json.Marshal(map[string]any{"data": map[string]string{"nmstate": base64.StdEncoding.EncodeToString(sealed)}})
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{ObjectRef: nref, UID: "nd", Body: body}})
	bmc := "redfish://" + redfishBMC(t) + "/redfish/v1/Systems/vm1"
	apply(t, s, &engine.PutObject{Create: true, Object: engine.Object{
		ObjectRef: engine.ObjectRef{Group: "metal3.io", Kind: "BareMetalHost", Namespace: "ns", Name: "bmh0"}, UID: "bmh-uid",
		Labels: map[string]string{"infraenvs.agent-install.openshift.io": "ie"},
		Body: json.RawMessage(`{"metadata":{"labels":{"infraenvs.agent-install.openshift.io":"ie"},"annotations":{` +
			`"bmac.agent-install.openshift.io/hostname":"master-0","bmac.agent-install.openshift.io/role":"master"}},` +
			`"spec":{"online":true,"bootMACAddress":"52:54:00:00:00:01","bootMode":"UEFI",` +
			`"bmc":{"address":"` + bmc + `","credentialsName":"bmc","disableCertificateVerification":true},` +
			`"rootDeviceHints":{"deviceName":"/dev/sda"},"preprovisioningNetworkDataName":"netdata"}}`)}})

	waitFor(t, s, "the domain host, spec.image and the host booted", func(m *engine.Model) bool {
		b, ok := m.BareMetalHost("ns.bmh0")
		_, kb := kubeBMH(m)
		ie, _ := m.Object(engine.ObjectRef{Group: "agent-install.openshift.io", Kind: "InfraEnv", Namespace: "ns", Name: "ie"}.Key())
		var ieb map[string]any
		_ = json.Unmarshal(ie.Body, &ieb)
		iso, _ := dig(ieb, "status", "isoDownloadURL").(string)
		return ok && b.Labels[engine.LabelInfraEnv] == uid && b.Annotations[engine.AnnotationHostname] == "master-0" &&
			b.BMC.CredentialsName == "bmc-ns.bmc" && iso != "" &&
			dig(kb, "spec", "image", "url") == iso && dig(kb, "spec", "image", "diskFormat") == "live-iso" &&
			dig(kb, "metadata", "annotations", "inspect.metal3.io") == "disabled" &&
			dig(kb, "status", "provisioning", "state") == "provisioning" && dig(kb, "status", "poweredOn") == true &&
			dig(kb, "status", "operationalStatus") == "OK"
	})
	s.Read(func(m *engine.Model) {
		b, _ := m.BareMetalHost("ns.bmh0")
		if doc, _, err := m.SecretValue(b.PreprovisioningNetworkDataName, "nmstate"); string(doc) != netdata {
			t.Errorf("the domain host's network data %q: %q, %v", b.PreprovisioningNetworkDataName, doc, err)
		}
		ie, _ := m.InfraEnv(uid)
		var n engine.NMStateConfig
		ok := false
		for c := range m.NMStateConfigs() {
			if c.Labels[engine.LabelNetworkDataBMH] == "ns.bmh0" {
				n, ok = c, true
			}
		}
		if !ok || n.Labels["rackboot.io/infra-env"] != uid || ie.StaticNetworkSelector["rackboot.io/infra-env"] != uid {
			t.Errorf("the BMH's network data is not a static network config of its infra-env: %+v %v (selector %v)", n, ok, ie.StaticNetworkSelector)
		}
		sec, _ := m.Secret("bmc-ns.bmc")
		if user, err := sealer.Open("bmc-ns.bmc", "username", sec.Data["username"]); err != nil || string(user) != "admin" {
			t.Errorf("domain BMC credentials: %q, %v", user, err)
		}
	})

	inv, _ := json.Marshal(models.Inventory{Hostname: "localhost",
		Interfaces: []*models.Interface{{Name: "eth0", MacAddress: "52:54:00:00:00:01"}},
		Disks: []*models.Disk{
			{ID: "/dev/disk/by-path/pci-0000:00:04.0", Name: "vda", Path: "/dev/vda", SizeBytes: 20 << 30, DriveType: models.DriveTypeHDD},
			{ID: "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4", Name: "sda", Path: "/dev/sda", SizeBytes: 200 << 30, DriveType: models.DriveTypeSSD},
		}})
	apply(t, s, &engine.RegisterHost{Host: engine.Host{ID: hostID, InfraEnvID: uid, Status: "discovering-unbound", Inventory: inv}})
	waitFor(t, s, "the Agent and BMH linked", func(m *engine.Model) bool {
		a, ab, ok := agentOf(m)
		_, kb := kubeBMH(m)
		hw, _ := dig(kb, "metadata", "annotations", "inspect.metal3.io/hardwaredetails").(string)
		var details struct {
			NICs []struct{ MAC string } `json:"nics"`
		}
		_ = json.Unmarshal([]byte(hw), &details)
		return ok && a.Labels["agent-install.openshift.io/bmh"] == "bmh0" &&
			dig(ab, "metadata", "labels", "agent-install.openshift.io/bmh") == "bmh0" &&
			dig(ab, "spec", "hostname") == "master-0" && dig(ab, "spec", "role") == "master" && dig(ab, "spec", "approved") == true &&
			dig(ab, "spec", "installation_disk_id") == "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4" &&
			len(details.NICs) == 1 && details.NICs[0].MAC == "52:54:00:00:00:01" && dig(kb, "status", "hardware") != nil
	})

	apply(t, s, &engine.DeleteObject{Ref: engine.ObjectRef{Group: "metal3.io", Kind: "BareMetalHost", Namespace: "ns", Name: "bmh0"}})
	waitFor(t, s, "the domain host deleted", func(m *engine.Model) bool {
		_, ok := m.BareMetalHost("ns.bmh0")
		_, sec := m.Secret("bmc-ns.bmc")
		_, nd := m.Secret("netdata-ns.netdata")
		return !ok && !sec && !nd
	})
}
