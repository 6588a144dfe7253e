package bmhctl_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bmhctl"
)

const netYAML = `interfaces:
- name: eno1
  type: ethernet
  state: up
  mac-address: 52:54:00:AB:CD:01
  ipv4:
    enabled: true
    dhcp: false
    address:
    - ip: 192.0.2.21
      prefix-length: 24
`

// preprovisioningNetworkDataName: the discovery image carries the static
// network of the secret it names, mapped to the boot MAC, selected by the
// infra-env; a missing secret is a config error; the config goes with the
// BMH.
func TestPreprovisioningNetworkData(t *testing.T) {
	b := newBed(t)
	const ie2 = "22222222-2222-4222-8222-222222222222"
	b.apply(&engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ie2, Name: "rack2",
		StaticNetworkSelector: map[string]string{"rack": "r2"}}})
	b.addBMH("redfish-virtualmedia", bmcPass, func(h *engine.BareMetalHost) {
		h.Labels[engine.LabelInfraEnv] = "rack2"
		h.PreprovisioningNetworkDataName = "vm1-network"
	})
	b.reconcile()
	st := b.bmh().Status
	if st.ErrorType != bmhctl.ErrorConfig || !strings.Contains(st.ErrorMessage, `secret "vm1-network" not found`) {
		t.Fatalf("status without the secret = %+v", st)
	}
	if got := b.machine.history(); got != "" {
		t.Errorf("the machine was booted without its network: %s", got)
	}

	b.apply(&engine.PutSecret{Secret: engine.Secret{Name: "vm1-network", Type: engine.NetworkDataSecretType,
		Data: map[string][]byte{engine.NetworkDataKey: []byte(netYAML)}}})
	b.apply(&engine.UpdateBareMetalHost{Name: "vm1", Patch: engine.BMHPatch{RetryNow: true}})
	b.reconcile()
	if st := b.bmh().Status; st.ProvisioningState != engine.BMHProvisioning || st.ErrorCount != 0 {
		t.Fatalf("status with the secret = %+v", st)
	}
	var n engine.NMStateConfig
	var ok bool
	b.st.Read(func(m *engine.Model) { n, ok = m.NMStateConfig("bmh-vm1-network") })
	if !ok || n.Config != netYAML || n.Labels["rack"] != "r2" || n.Labels[engine.LabelNetworkDataBMH] != "vm1" ||
		len(n.Interfaces) != 1 || n.Interfaces[0] != (engine.MACInterface{MAC: vmMAC, Name: "eno1"}) {
		t.Errorf("NMState config = %+v (%v)", n, ok)
	}
	if !slices.ContainsFunc(b.events(), func(e string) bool { return strings.HasPrefix(e, "bmh_network_data: ") }) {
		t.Errorf("no bmh_network_data event: %q", b.events())
	}

	b.apply(&engine.DeleteBareMetalHost{Name: "vm1"})
	b.st.Read(func(m *engine.Model) { _, ok = m.NMStateConfig("bmh-vm1-network") })
	if ok {
		t.Error("the BMH's NMState config outlived it")
	}
}

// An infra-env that selects no NMState configs could not carry the
// network: a config error that says so.
func TestPreprovisioningNetworkDataNeedsSelector(t *testing.T) {
	b := newBed(t)
	b.apply(&engine.PutSecret{Secret: engine.Secret{Name: "vm1-network", Type: engine.NetworkDataSecretType,
		Data: map[string][]byte{engine.NetworkDataKey: []byte(netYAML)}}})
	b.addBMH("redfish-virtualmedia", bmcPass, func(h *engine.BareMetalHost) { h.PreprovisioningNetworkDataName = "vm1-network" })
	b.reconcile()
	if st := b.bmh().Status; st.ErrorType != bmhctl.ErrorConfig || !strings.Contains(st.ErrorMessage, "no static network selector") {
		t.Errorf("status = %+v", st)
	}
}

// The network data secret is sealed at rest like every secret (the store
// seals it, as rackbootd's does): the controller opens it.
func TestPreprovisioningNetworkDataSealed(t *testing.T) {
	b := newBed(t)
	b.st.SetSealer(b.sealer)
	const ie2 = "22222222-2222-4222-8222-222222222222"
	b.apply(&engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ie2, Name: "rack2",
		StaticNetworkSelector: map[string]string{"rack": "r2"}}})
	b.apply(&engine.PutSecret{Secret: engine.Secret{Name: "vm1-network", Type: engine.NetworkDataSecretType,
		Data: map[string][]byte{engine.NetworkDataKey: []byte(netYAML)}}})
	b.st.Read(func(m *engine.Model) {
		if s, _ := m.Secret("vm1-network"); !engine.IsSealed(s.Data[engine.NetworkDataKey]) {
			t.Fatal("the network data secret is not sealed")
		}
	})
	b.addBMH("redfish-virtualmedia", bmcPass, func(h *engine.BareMetalHost) {
		h.Labels[engine.LabelInfraEnv] = "rack2"
		h.PreprovisioningNetworkDataName = "vm1-network"
	})
	b.reconcile()
	if st := b.bmh().Status; st.ProvisioningState != engine.BMHProvisioning || st.ErrorCount != 0 {
		t.Fatalf("status = %+v", st)
	}
	b.st.Read(func(m *engine.Model) {
		if n, ok := m.NMStateConfig("bmh-vm1-network"); !ok || n.Config != netYAML {
			t.Errorf("NMState config = %+v (%v)", n, ok)
		}
	})
}
