package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/models"
)

const bmhPassword = "Bmc-Pa55word-xyz"

// newBMHEnv is an API with a sealer, over an in-memory store.
func newBMHEnv(t *testing.T) (*env, *engine.Sealer) {
	t.Helper()
	sealer, err := engine.NewSealer(bytes.Repeat([]byte{9}, 32))
	if err != nil {
		t.Fatal(err)
	}
	store := enginetest.NewStore()
	keys := auth.NewKeyRing()
	if _, err := keys.Generate(); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	h, err = New(Options{Store: store, AdminToken: testAdmin, Keys: keys, ServiceURL: srv.URL, Sealer: sealer,
		Log: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if strings.Contains(logs.String(), bmhPassword) {
			t.Errorf("the BMC password reached the log:\n%s", logs)
		}
		if strings.Contains(logs.String(), "undocumented success status") {
			t.Errorf("undocumented success status:\n%s", logs)
		}
	})
	return &env{t: t, store: store, srv: srv, logs: logs, keys: keys, seen: &syncBuffer{}}, sealer
}

// sno1 is seed 000's BareMetalHost with its credentials.
func sno1() map[string]any {
	return map[string]any{
		"apiVersion": "metal3.io/v1alpha1", "kind": "BareMetalHost",
		"metadata": map[string]any{"name": "sno1", "namespace": "sno1",
			"labels": map[string]string{"infraenvs.agent-install.openshift.io": "sno1"},
			"annotations": map[string]string{"inspect.metal3.io": "disabled",
				"bmac.agent-install.openshift.io/role": "master", "bmac.agent-install.openshift.io/hostname": "sno1"}},
		"spec": map[string]any{"automatedCleaningMode": "disabled", "online": true, "bootMACAddress": "94:40:c9:1f:bf:64",
			"bmc": map[string]any{"disableCertificateVerification": true,
				"address": "redfish-virtualmedia://10.0.0.5/redfish/v1/Systems/1", "credentialsName": "sno1-bmc-secret"},
			"rootDeviceHints": map[string]any{"deviceName": "/dev/sda", "minSizeGigabytes": 100}},
		"credentials": map[string]string{"username": "root", "password": bmhPassword},
	}
}

// Fields of a metal3 manifest rackboot does not use are reported as
// Warning headers; the BMH is stored with bootMode.
func TestBareMetalHostUnknownFields(t *testing.T) {
	e, _ := newBMHEnv(t)
	body := sno1()
	spec := body["spec"].(map[string]any)
	spec["bootMode"] = "UEFISecureBoot"
	spec["image"] = map[string]any{"url": "http://example.com/os.qcow2"}
	spec["bmc"].(map[string]any)["port"] = 623
	r := e.must(adminCred(), 201, "POST", "/baremetal-hosts", body)
	want := []string{`299 - "unknown field spec.bmc.port (ignored by rackboot)"`, `299 - "unknown field spec.image (ignored by rackboot)"`}
	if got := r.hdr.Values("Warning"); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Warning headers = %q, want %q", got, want)
	}
	var b models.BareMetalHost
	r.decode(t, &b)
	if b.Spec.BootMode != "UEFISecureBoot" {
		t.Errorf("bootMode = %q", b.Spec.BootMode)
	}
	e.wantError(e.do(adminCred(), "PATCH", "/baremetal-hosts/sno1", map[string]any{"spec": map[string]any{"bootMode": "BIOS"}}), 400, "bootMode")
}

func TestBareMetalHostAPI(t *testing.T) {
	e, sealer := newBMHEnv(t)
	var b models.BareMetalHost
	e.must(adminCred(), 201, "POST", "/baremetal-hosts", sno1()).decode(t, &b)
	if b.Metadata.Name != "sno1" || b.Spec.BMC.CredentialsName != "sno1-bmc-secret" || !b.Spec.Online ||
		b.Status == nil || b.Status.Provisioning.State != engine.BMHRegistering || b.Spec.RootDeviceHints.MinSizeGigabytes != 100 {
		t.Errorf("created = %+v", b)
	}
	// The secret holds ciphertext only, which opens with the sealer.
	e.store.Read(func(m *engine.Model) {
		s, ok := m.Secret("sno1-bmc-secret")
		if !ok || s.Type != engine.BMCSecretType || bytes.Contains(s.Data["password"], []byte(bmhPassword)) {
			t.Fatalf("secret = %v %v", s, ok)
		}
		if p, err := sealer.Open(s.Name, "password", s.Data["password"]); err != nil || string(p) != bmhPassword {
			t.Errorf("unsealed = %q, %v", p, err)
		}
	})
	e.must(adminCred(), 409, "POST", "/baremetal-hosts", sno1())

	var list []models.BareMetalHost
	e.must(adminCred(), 200, "GET", "/baremetal-hosts", nil).decode(t, &list)
	if len(list) != 1 || list[0].Metadata.Name != "sno1" {
		t.Errorf("list = %+v", list)
	}
	// PATCH: a label removed with null, online off.
	b = models.BareMetalHost{}
	e.must(adminCred(), 200, "PATCH", "/baremetal-hosts/sno1", map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"infraenvs.agent-install.openshift.io": nil}},
		"spec":     map[string]any{"online": false},
	}).decode(t, &b)
	if len(b.Metadata.Labels) != 0 || b.Spec.Online {
		t.Errorf("patched = %+v", b)
	}
	e.wantError(e.do(adminCred(), "PATCH", "/baremetal-hosts/sno1", map[string]any{
		"metadata": map[string]any{"annotations": map[string]any{"bmac.agent-install.openshift.io/role": "boss"}}}), 400, "role")
	e.wantError(e.do(adminCred(), "GET", "/baremetal-hosts/nope", nil), 404, "nope")

	e.must(adminCred(), 204, "DELETE", "/baremetal-hosts/sno1", nil)
	e.store.Read(func(m *engine.Model) {
		if _, ok := m.Secret("sno1-bmc-secret"); ok {
			t.Error("the credentials secret outlived its only BMH")
		}
	})
	if strings.Contains(e.seen.String(), bmhPassword) {
		t.Error("a response showed the BMC password")
	}
}

func TestBareMetalHostAPIRejects(t *testing.T) {
	e, _ := newBMHEnv(t)
	for name, c := range map[string]struct {
		mod    func(map[string]any)
		reason string
	}{
		"bad scheme": {func(b map[string]any) {
			b["spec"].(map[string]any)["bmc"].(map[string]any)["address"] = "ipmi://10.0.0.5"
		}, "accepted schemes"},
		"bad MAC":           {func(b map[string]any) { b["spec"].(map[string]any)["bootMACAddress"] = "94:40" }, "MAC"},
		"other kind":        {func(b map[string]any) { b["kind"] = "Secret" }, "kind"},
		"no password":       {func(b map[string]any) { b["credentials"] = map[string]string{"username": "root"} }, "password"},
		"upper-case name":   {func(b map[string]any) { b["metadata"].(map[string]any)["name"] = "SNO1" }, "DNS subdomain"},
		"injecting name":    {func(b map[string]any) { setAnnotation(b, "bmac.agent-install.openshift.io/hostname", "a\nshell") }, "hostname"},
		"installer args":    {func(b map[string]any) { setAnnotation(b, "bmac.agent-install.openshift.io/installer-args", "--x") }, "installer-args"},
		"bad cleaning mode": {func(b map[string]any) { b["spec"].(map[string]any)["automatedCleaningMode"] = "always" }, "automatedCleaningMode"},
	} {
		t.Run(name, func(t *testing.T) {
			b := sno1()
			c.mod(b)
			e.wantError(e.do(adminCred(), "POST", "/baremetal-hosts", b), 400, c.reason)
		})
	}
	e.wantError(e.do(adminCred(), "POST", "/baremetal-hosts", "{"), 400, "JSON")
	// A pull secret of the same name is not overwritten with credentials.
	if _, err := e.store.Apply(t.Context(), &engine.PutSecret{Secret: engine.Secret{Name: "sno1-bmc-secret", Type: "kubernetes.io/dockerconfigjson"}}); err != nil {
		t.Fatal(err)
	}
	e.wantError(e.do(adminCred(), "POST", "/baremetal-hosts", sno1()), 409, "does not hold BMC credentials")
	e.store.Read(func(m *engine.Model) {
		if _, ok := m.BareMetalHost("sno1"); ok {
			t.Error("a refused BMH was stored")
		}
	})
	// Agents may not touch BMHs.
	e.wantError(e.do(cred{agent: "not-admin"}, "GET", "/baremetal-hosts", nil), 401, "")
}

func setAnnotation(b map[string]any, k, v string) {
	b["metadata"].(map[string]any)["annotations"].(map[string]string)[k] = v
}

// BareMetalHost bodies come from users: any body is stored or refused
// with a 4xx error document, never a 5xx or a panic, and the model holds
// BMHs that pass the engine's checks only.
func FuzzCreateBMH(f *testing.F) {
	seed, _ := json.Marshal(sno1())
	f.Add(seed)
	f.Add([]byte(`{"metadata":{"name":"a"},"spec":{"bmc":{"address":"redfish+http://[::1]:8000/redfish/v1/Systems/1","credentialsName":"c"}}}`))
	f.Add([]byte(`{"metadata":{"name":"a","annotations":{"bmac.agent-install.openshift.io/installer-args":"[\"x\"]"}},"spec":{"rootDeviceHints":{"rotational":false}}}`))
	f.Add([]byte(`{"kind":7}`))
	sealer, _ := engine.NewSealer(bytes.Repeat([]byte{9}, 32))
	keys := auth.NewKeyRing()
	if _, err := keys.Generate(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		store := enginetest.NewStore()
		h, err := New(Options{Store: store, AdminToken: testAdmin, Keys: keys, ServiceURL: "http://10.0.0.1:8080", Sealer: sealer})
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("POST", BasePath+"/baremetal-hosts", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testAdmin)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 || (rec.Code != 201 && rec.Code != 400 && rec.Code != 409) {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if rec.Code == 201 {
			var out models.BareMetalHost
			if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Metadata.Name == "" {
				t.Errorf("created answer %s: %v", rec.Body, err)
			}
		}
	})
}

// New credentials replace the sealed secret and end the backoff, so the
// controller tries the BMC again at once.
func TestPatchBMHCredentials(t *testing.T) {
	e, sealer := newBMHEnv(t)
	e.must(adminCred(), 201, "POST", "/baremetal-hosts", sno1())
	if _, err := e.store.Apply(t.Context(), &engine.SetBareMetalHostStatus{Name: "sno1", Status: engine.BMHStatus{
		ErrorType: "bad-credentials", ErrorCount: 3, ProvisioningState: engine.BMHRegistering}}); err != nil {
		t.Fatal(err)
	}
	var b models.BareMetalHost
	e.must(adminCred(), 200, "PATCH", "/baremetal-hosts/sno1", map[string]any{
		"credentials": map[string]string{"username": "root", "password": "the-right-one"}}).decode(t, &b)
	if b.Status.ErrorCount != 0 {
		t.Errorf("error count after new credentials = %d", b.Status.ErrorCount)
	}
	e.store.Read(func(m *engine.Model) {
		s, _ := m.Secret("sno1-bmc-secret")
		if p, err := sealer.Open(s.Name, "password", s.Data["password"]); err != nil || string(p) != "the-right-one" {
			t.Errorf("password after PATCH = %q, %v", p, err)
		}
	})
	e.wantError(e.do(adminCred(), "PATCH", "/baremetal-hosts/sno1", map[string]any{
		"credentials": map[string]string{"username": "root"}}), 400, "password")
}

// status.hardware is the paired agent's inventory in metal3's names.
func TestBareMetalHostHardware(t *testing.T) {
	e, _ := newBMHEnv(t)
	e.must(adminCred(), 201, "POST", "/baremetal-hosts", sno1())
	inv, _ := json.Marshal(models.Inventory{
		Hostname:     "sno1",
		SystemVendor: &models.SystemVendor{Manufacturer: "Dell Inc.", ProductName: "PowerEdge R650", SerialNumber: "CN7016D2"},
		CPU:          &models.CPU{Architecture: "x86_64", Count: 64, ModelName: "Intel(R) Xeon(R) Gold 6338", Frequency: 2000},
		Memory:       &models.Memory{PhysicalBytes: 256 << 30},
		Interfaces: []*models.Interface{{Name: "eno1", MacAddress: "94:40:c9:1f:bf:64", SpeedMbps: 25000,
			IPV4Addresses: []string{"10.0.0.20/24"}, Vendor: "0x14e4", Product: "0x16d7"}},
		Disks: []*models.Disk{{Name: "sda", Path: "/dev/sda", SizeBytes: 480 << 30, DriveType: models.DriveTypeSSD,
			Model: "MZ7KH480", Serial: "S47MNA0R", Wwn: "0x5002538e40a1b2c3", Hctl: "0:0:0:0", Vendor: "ATA"}},
	})
	const id = "44444444-4444-4444-8444-444444444444"
	const ieID = "11111111-1111-4111-8111-111111111111"
	for _, cmd := range []engine.Command{
		&engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "sno1"}},
		&engine.RegisterHost{Host: engine.Host{ID: id, InfraEnvID: ieID, Status: "discovering-unbound", Inventory: inv}},
		&engine.PairBareMetalHost{Name: "sno1", HostID: id},
	} {
		if _, err := e.store.Apply(t.Context(), cmd); err != nil {
			t.Fatalf("%T: %v", cmd, err)
		}
	}
	var b models.BareMetalHost
	e.must(adminCred(), 200, "GET", "/baremetal-hosts/sno1", nil).decode(t, &b)
	hw := b.Status.Hardware
	if hw == nil {
		t.Fatalf("status = %+v, want hardware", b.Status)
	}
	want := models.HardwareDetails{
		SystemVendor: models.HardwareSystemVendor{Manufacturer: "Dell Inc.", ProductName: "PowerEdge R650", SerialNumber: "CN7016D2"},
		RAMMebibytes: 256 << 10, Hostname: "sno1",
		NIC: []models.HardwareNIC{{Name: "eno1", Model: "0x14e4 0x16d7", MAC: "94:40:c9:1f:bf:64", IP: "10.0.0.20", SpeedGbps: 25}},
		Storage: []models.HardwareStorage{{Name: "/dev/sda", Type: "SSD", SizeBytes: 480 << 30, Vendor: "ATA", Model: "MZ7KH480",
			SerialNumber: "S47MNA0R", WWN: "0x5002538e40a1b2c3", HCTL: "0:0:0:0"}},
		CPU: models.HardwareCPU{Arch: "x86_64", Model: "Intel(R) Xeon(R) Gold 6338", ClockMegahertz: 2000, Count: 64},
	}
	if !reflect.DeepEqual(*hw, want) {
		t.Errorf("hardware =\n  %+v\nwant\n  %+v", *hw, want)
	}
}

// preprovisioningNetworkData is stored as the Secret the spec names (by
// default <name>-network-config-secret); a document that is not NMState
// is refused and nothing is stored.
func TestBareMetalHostNetworkData(t *testing.T) {
	e, _ := newBMHEnv(t)
	bad := sno1()
	bad["preprovisioningNetworkData"] = "interfaces: 7"
	e.wantError(e.do(adminCred(), "POST", "/baremetal-hosts", bad), 400, "preprovisioningNetworkData")
	e.store.Read(func(m *engine.Model) {
		if _, ok := m.BareMetalHost("sno1"); ok {
			t.Error("the refused BMH was stored")
		}
		if _, ok := m.Secret("sno1-bmc-secret"); ok {
			t.Error("the refused BMH's credentials were stored")
		}
	})
	good := sno1()
	good["preprovisioningNetworkData"] = "interfaces:\n- name: eno1\n  type: ethernet\n  state: up\n"
	var b models.BareMetalHost
	e.must(adminCred(), 201, "POST", "/baremetal-hosts", good).decode(t, &b)
	if b.Spec.PreprovisioningNetworkDataName != "sno1-network-config-secret" {
		t.Errorf("preprovisioningNetworkDataName = %q", b.Spec.PreprovisioningNetworkDataName)
	}
	e.store.Read(func(m *engine.Model) {
		s, ok := m.Secret("sno1-network-config-secret")
		if !ok || s.Type != engine.NetworkDataSecretType || !strings.Contains(string(s.Data[engine.NetworkDataKey]), "name: eno1") {
			t.Errorf("network data secret = %+v %v", s, ok)
		}
	})
}
