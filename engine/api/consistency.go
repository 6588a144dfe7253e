package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
)

// IndexHeader carries, on answers served from this appliance's state as
// it is, the log index of that state: a client comparing it across
// appliances sees how stale a list is.
const IndexHeader = "X-Rackboot-Index"

// staleRoutes are the GET routes answered from this appliance's state as
// it is, without waiting for the leader: lists and streams (which say
// their index), the agent's poll (its check-in write comes first and
// returns once applied here) and the OpenAPI document. Every other read
// waits for a barrier first, so what it shows is linearizable wherever the
// client connects. Writes are linearizable by construction: they are
// decided when the leader's log applies them.
func staleRoutes() map[string]bool {
	return map[string]bool{
		"/openapi.json": true, "/clusters": true, "/infra-envs": true, "/events": true,
		"/infra-envs/{infra_env_id}/hosts": true, "/baremetal-hosts": true,
		"/clusters/{cluster_id}/manifests":                        true,
		"/infra-envs/{infra_env_id}/hosts/{host_id}/instructions": true,
	}
}

// consistent makes a read of rt linearizable (a barrier) unless rt may be
// stale, in which case it names the index of the state it answers from.
func (s *server) consistent(w http.ResponseWriter, r *http.Request, rt route) error {
	if rt.method != http.MethodGet {
		return nil
	}
	if s.stale[rt.path] {
		var index uint64
		s.store.Read(func(m *engine.Model) { index = m.Index() })
		w.Header().Set(IndexHeader, strconv.FormatUint(index, 10))
		return nil
	}
	if err := s.store.Barrier(r.Context()); err != nil {
		return fmt.Errorf("read barrier: %w", err)
	}
	return nil
}

// authenticate is auth.Authenticate, except that a token signed by a key
// this appliance does not hold yet (rotated on another appliance a moment
// ago) is checked again after a barrier and a resync of the key ring.
func (s *server) authenticate(r *http.Request) (auth.Principal, error) {
	p, err := auth.Authenticate(r, s.admin, s.keys)
	if !errors.Is(err, auth.ErrUnknownKey) {
		return p, err
	}
	if berr := s.store.Barrier(r.Context()); berr != nil {
		return p, err
	}
	if changed, serr := engine.SyncKeyRing(s.store, s.keys); serr != nil || !changed {
		return p, err
	}
	return auth.Authenticate(r, s.admin, s.keys)
}
