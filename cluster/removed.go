package cluster

import (
	"context"
	"errors"

	"github.com/rackboot/rackboot/engine"
)

// A removed member keeps its certificate: the rack CA cannot take it back.
// So that it cannot come back by itself (wiped and restarted with join),
// its removal is recorded in the replicated state, as an engine secret
// without data, and a node asking to join as a removed id is refused. An
// operator adds it back (rackbootctl cluster join), which clears the
// record.

// removedType is the type of the secrets recording removals.
const removedType = "rackboot-cluster-removed"

// removedSecret names the record of id's removal.
func removedSecret(id string) string { return removedType + "/" + id }

// markRemoved records that id was removed.
func (s *Store) markRemoved(ctx context.Context, id string) {
	_, err := s.Apply(ctx, &engine.PutSecret{Secret: engine.Secret{Name: removedSecret(id), Type: removedType}})
	if err != nil {
		s.cfg.Log.Warn("could not record a member's removal: it may ask to join again by itself", "node", id, "err", err)
	}
}

// clearRemoved forgets id's removal (it is a member again).
func (s *Store) clearRemoved(ctx context.Context, id string) {
	if !s.wasRemoved(id) {
		return
	}
	_, err := s.Apply(ctx, &engine.DeleteSecret{Name: removedSecret(id)})
	if err != nil && !errors.Is(err, engine.ErrNotFound) {
		s.cfg.Log.Warn("could not clear a member's removal record", "node", id, "err", err)
	}
}

// wasRemoved reports whether id's removal is recorded here.
func (s *Store) wasRemoved(id string) bool {
	var ok bool
	s.Read(func(m *engine.Model) { _, ok = m.Secret(removedSecret(id)) })
	return ok
}
