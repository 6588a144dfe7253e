package infraenvs

import (
	"context"
	"errors"
	"testing"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/clusters"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// An infra-env with a bad Ignition override is refused (the discovery
// builder's ErrInvalidOverride, which the REST API answers 400) before
// anything is written; a good one with a static network config is
// stored with its pull secret and an NMState config it selects, and
// deleting it removes both.
func TestRegisterChangeDeregister(t *testing.T) {
	st := enginetest.NewStore()
	hs, err := hosts.New(hosts.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Store: st, Hosts: hs, ServiceURL: "http://10.0.0.1:8090"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	name, ps := "rack", `{"auths":{}}`
	bad := models.InfraEnvCreateParams{Name: &name, PullSecret: &ps, IgnitionConfigOverride: `{"ignition":{"version":"9.9.9"}}`}
	if _, err := s.Register(ctx, bad); !errors.Is(err, discovery.ErrInvalidOverride) {
		t.Fatalf("bad override: %v", err)
	}
	if n := st.Entries(); n != 0 {
		t.Errorf("a refused infra-env wrote %d entries", n)
	}
	good := models.InfraEnvCreateParams{Name: &name, PullSecret: &ps, StaticNetworkConfig: []models.HostStaticNetworkConfig{{
		NetworkYAML:     "interfaces:\n  - name: eth0\n    type: ethernet\n    state: up\n    ipv4:\n      enabled: true\n      dhcp: true\n",
		MACInterfaceMap: []models.MACInterface{{MACAddress: "52:54:00:aa:00:01", LogicalNICName: "eth0"}},
	}}}
	id, err := s.Register(ctx, good)
	if err != nil {
		t.Fatal(err)
	}
	count := func() (infraEnvs, nmstate int, secret bool) {
		st.Read(func(m *engine.Model) {
			_, secret = m.Secret(clusters.InfraEnvSecretName(id))
			if ie, ok := m.InfraEnv(id); ok {
				infraEnvs++
				nmstate = len(StaticNetwork(m, ie))
			}
		})
		return
	}
	if ies, nm, sec := count(); ies != 1 || nm != 1 || !sec {
		t.Fatalf("after Register: infra-env %d, NMState configs %d, pull secret %t", ies, nm, sec)
	}
	ntp := "10.0.0.1, 10.0.0.2"
	if err := s.Change(ctx, id, models.InfraEnvUpdateParams{AdditionalNtpSources: &ntp}); err != nil {
		t.Fatal(err)
	}
	var got []string
	st.Read(func(m *engine.Model) { ie, _ := m.InfraEnv(id); got = ie.NTPSources })
	if len(got) != 2 || got[0] != "10.0.0.1" || got[1] != "10.0.0.2" {
		t.Errorf("NTP sources %q", got)
	}
	if err := s.Deregister(ctx, id); err != nil {
		t.Fatal(err)
	}
	var left int
	st.Read(func(m *engine.Model) {
		for range m.NMStateConfigs() {
			left++
		}
	})
	if ies, _, sec := count(); ies != 0 || sec || left != 0 {
		t.Errorf("after Deregister: infra-env %d, pull secret %t, NMState configs %d", ies, sec, left)
	}
}
