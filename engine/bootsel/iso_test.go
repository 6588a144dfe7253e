package bootsel_test

import (
	"errors"
	"testing"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/engine"
)

// The ISO's config is the infra-env's: its agent token and the static
// networking of every NMState config it selects, no hostname; an unknown
// infra-env is refused.
func TestInfraEnvIgnition(t *testing.T) {
	e := newEnv(t, nil)
	ign, err := e.sel.InfraEnvIgnition(t.Context(), ieA)
	if err != nil {
		t.Fatal(err)
	}
	files := checkAgentConf(t, e, ign, ieA)
	checkStaticNetwork(t, files, nmMAC)
	if _, ok := files["/etc/hostname"]; ok {
		t.Error("the infra-env's ISO config names a host")
	}
	again, _ := e.sel.InfraEnvIgnition(t.Context(), ieA)
	if &again[0] != &ign[0] {
		t.Error("the config was built again although nothing changed")
	}
	if _, err := e.sel.InfraEnvIgnition(t.Context(), "dddddddd-0000-4000-8000-000000000009"); !errors.Is(err, engine.ErrNotFound) || !errors.Is(err, boot.ErrNoBoot) {
		t.Errorf("unknown infra-env: %v", err)
	}
}
