package bootsel

import (
	"context"
	"fmt"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/engine"
)

// InfraEnvIgnition returns infra-env id's discovery config.ign as an ISO
// of the infra-env carries it: no per-host part (hostname), and the static
// networking of every NMState config the infra-env selects (the image's
// pre-network script picks a host's own by MAC, as upstream's). It is
// cached like the per-host configs. An unknown infra-env is an error
// wrapping boot.ErrNoBoot and engine.ErrNotFound.
func (s *Selector) InfraEnvIgnition(_ context.Context, id string) ([]byte, error) {
	var (
		in inputs
		ok bool
	)
	s.opts.Store.Read(func(m *engine.Model) {
		if in.ie, ok = m.InfraEnv(id); !ok {
			return
		}
		in.pullSecret, in.secretRev = m.PullSecret(in.ie.PullSecretRef)
		imageInputs(m, &in)
		for n := range m.NMStateConfigs() { // name order
			if engine.Selects(in.ie.StaticNetworkSelector, n.Labels) {
				in.nmstate = append(in.nmstate, n)
			}
		}
	})
	if !ok {
		return nil, fmt.Errorf("%w: infra-env %s: %w", boot.ErrNoBoot, id, engine.ErrNotFound)
	}
	return s.ignition(in, "")
}
