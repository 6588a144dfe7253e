package engine_test

import (
	"bytes"
	"net"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

func sampleBMH() engine.BareMetalHost {
	return engine.BareMetalHost{
		Name:   "worker-0",
		Labels: map[string]string{engine.LabelInfraEnv: "ie"},
		Annotations: map[string]string{
			engine.AnnotationRole:     "worker",
			engine.AnnotationHostname: "w0",
		},
		BMC:            engine.BMC{Address: "redfish-virtualmedia+http://127.0.0.1:8000/redfish/v1/Systems/1", CredentialsName: "worker-0-bmc"},
		BootMACAddress: "52:54:00:AA:00:01",
		Online:         true,
		Status:         engine.BMHStatus{ProvisioningState: "provisioned", HostID: "x"},
	}
}

func TestBareMetalHostLifecycle(t *testing.T) {
	st := newStore()
	must(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "ie"}})
	got := must(t, st, &engine.CreateBareMetalHost{Host: sampleBMH()}).(engine.BareMetalHost)
	if got.Status.ProvisioningState != engine.BMHRegistering || got.Status.HostID != "" {
		t.Errorf("new BMH status = %+v, want registering and no host (the command's status is ignored)", got.Status)
	}
	expectErr(t, st, &engine.CreateBareMetalHost{Host: sampleBMH()}, engine.ErrConflict)

	// The label seam: the boot MAC, in any case, boots the labelled infra-env.
	mac, _ := net.ParseMAC("52:54:00:aa:00:01")
	st.Read(func(m *engine.Model) {
		if ref, ok := (engine.BMHLabeler{}).InfraEnvFor(m, mac); !ok || ref != "ie" {
			t.Errorf("labeler = %q %v", ref, ok)
		}
		if ie, ok := m.InfraEnvByRef("ie"); !ok || ie.ID != ieID {
			t.Errorf("InfraEnvByRef(name) = %v %v", ie.ID, ok)
		}
	})

	// Status: the controller's write keeps the pairing.
	must(t, st, &engine.SetBareMetalHostStatus{Name: "worker-0", Status: engine.BMHStatus{
		ProvisioningState: engine.BMHProvisioning, PowerState: "On", ErrorCount: 2, HostID: "ignored"}})
	must(t, st, &engine.RegisterHost{Host: engine.Host{ID: h1ID, InfraEnvID: ieID, Status: "discovering-unbound"}})
	role, approved := "worker", true
	h := must(t, st, &engine.PairBareMetalHost{Name: "worker-0", HostID: h1ID, Host: engine.HostFromBMH{
		Role: &role, Approved: &approved, Labels: map[string]string{"rack": "1"}}}).(engine.Host)
	if h.BMHName != "worker-0" || h.Role != "worker" || !h.Approved || h.Labels["rack"] != "1" {
		t.Errorf("paired host = %+v", h)
	}
	st.Read(func(m *engine.Model) {
		b, _ := m.BareMetalHost("worker-0")
		if b.Status.HostID != h1ID || b.Status.ProvisioningState != engine.BMHProvisioned || b.Status.PowerState != "On" {
			t.Errorf("paired BMH status = %+v", b.Status)
		}
	})

	// A spec change of the BMC fields resets the backoff; a null removes a label.
	addr := "redfish+http://127.0.0.1:8000/redfish/v1/Systems/2"
	b := must(t, st, &engine.UpdateBareMetalHost{Name: "worker-0", Patch: engine.BMHPatch{
		Address: &addr, Labels: map[string]*string{engine.LabelInfraEnv: nil}}}).(engine.BareMetalHost)
	if b.Status.ErrorCount != 0 || b.InfraEnvRef() != "" || b.Labels != nil || b.BMC.Address != addr {
		t.Errorf("updated BMH = %+v", b)
	}
	bad := "ftp://x"
	expectErr(t, st, &engine.UpdateBareMetalHost{Name: "worker-0", Patch: engine.BMHPatch{Address: &bad}}, engine.ErrInvalid)

	// Snapshots carry BMHs.
	dump := st.Dump()
	m, err := engine.ReadModel(bytes.NewReader(dump))
	if err != nil {
		t.Fatal(err)
	}
	if again := enginetest.Dump(m); !bytes.Equal(dump, again) {
		t.Errorf("snapshot does not round-trip:\n%s\n---\n%s", dump, again)
	}
	if _, ok := m.BareMetalHost("worker-0"); !ok {
		t.Error("BMH lost in the snapshot")
	}

	// Deleting the BMH unpairs its host.
	must(t, st, &engine.DeleteBareMetalHost{Name: "worker-0"})
	st.Read(func(m *engine.Model) {
		if h, _ := m.Host(h1ID); h.BMHName != "" {
			t.Errorf("host still paired with %q", h.BMHName)
		}
	})
	expectErr(t, st, &engine.DeleteBareMetalHost{Name: "worker-0"}, engine.ErrNotFound)
}

func TestBareMetalHostRejects(t *testing.T) {
	st := newStore()
	for name, mod := range map[string]func(*engine.BareMetalHost){
		"upper-case name": func(b *engine.BareMetalHost) { b.Name = "Worker" },
		"empty name":      func(b *engine.BareMetalHost) { b.Name = "" },
		"bad scheme":      func(b *engine.BareMetalHost) { b.BMC.Address = "ipmi://10.0.0.1" },
		"no credentials":  func(b *engine.BareMetalHost) { b.BMC.CredentialsName = "" },
		"bad MAC":         func(b *engine.BareMetalHost) { b.BootMACAddress = "52:54:00" },
		"bad cleaning":    func(b *engine.BareMetalHost) { b.AutomatedCleaningMode = "always" },
		"negative size": func(b *engine.BareMetalHost) {
			b.RootDeviceHints = &engine.RootDeviceHints{MinSizeGigabytes: -1}
		},
	} {
		t.Run(name, func(t *testing.T) {
			b := sampleBMH()
			mod(&b)
			expectErr(t, st, &engine.CreateBareMetalHost{Host: b}, engine.ErrInvalid)
		})
	}
	must(t, st, &engine.CreateBareMetalHost{Host: sampleBMH()})
	expectErr(t, st, &engine.PairBareMetalHost{Name: "worker-0", HostID: h1ID}, engine.ErrNotFound)
	expectErr(t, st, &engine.SetBareMetalHostStatus{Name: "worker-0", Revision: 999}, engine.ErrConflict)
}

func TestPairConflicts(t *testing.T) {
	st := newStore()
	must(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "ie"}})
	a, b := sampleBMH(), sampleBMH()
	b.Name = "worker-1"
	must(t, st, &engine.CreateBareMetalHost{Host: a})
	must(t, st, &engine.CreateBareMetalHost{Host: b})
	must(t, st, &engine.RegisterHost{Host: engine.Host{ID: h1ID, InfraEnvID: ieID}})
	must(t, st, &engine.PairBareMetalHost{Name: "worker-0", HostID: h1ID})
	expectErr(t, st, &engine.PairBareMetalHost{Name: "worker-1", HostID: h1ID}, engine.ErrConflict)
	// The machine registers again under a new id: the old host forgets the BMH.
	h2 := "55555555-5555-4555-8555-555555555555"
	must(t, st, &engine.RegisterHost{Host: engine.Host{ID: h2, InfraEnvID: ieID}})
	must(t, st, &engine.PairBareMetalHost{Name: "worker-0", HostID: h2})
	st.Read(func(m *engine.Model) {
		if h, _ := m.Host(h1ID); h.BMHName != "" {
			t.Errorf("old host still paired with %q", h.BMHName)
		}
	})
}
