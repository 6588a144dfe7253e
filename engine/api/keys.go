package api

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// Event names of the signing-keys endpoints.
const (
	eventKeyRotated = "signing_key_rotated"
	eventKeyRetired = "signing_key_retired"
)

// keyAdmin serves the signing-keys endpoints. mu serializes rotations and
// retirements, so the ring stored after one is the ring held in memory.
type keyAdmin struct {
	s  *server
	mu sync.Mutex
}

func newKeyAdmin(s *server) *keyAdmin { return &keyAdmin{s: s} }

// list answers GET /v2/signing-keys.
func (k *keyAdmin) list(w http.ResponseWriter, _ *http.Request, _ auth.Principal) error {
	writeJSON(w, http.StatusOK, k.current())
	return nil
}

func (k *keyAdmin) current() models.SigningKeys {
	return models.SigningKeys{ActiveKID: k.s.keys.ActiveKID(), KIDs: k.s.keys.KIDs()}
}

// rotate answers POST /v2/signing-keys/actions/rotate: a new key signs
// from now on, the keys held before keep verifying (agents in flight keep
// working) until retired. The ring is changed in the replicated state
// (engine.UpdateKeyRing, from any appliance of a rack) and then held here.
func (k *keyAdmin) rotate(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	ctx := r.Context()
	k.mu.Lock()
	defer k.mu.Unlock()
	var prev, kid string
	next, err := engine.UpdateKeyRing(ctx, k.s.store, func(ring *auth.KeyRing) (err error) {
		prev = ring.ActiveKID()
		kid, err = ring.Rotate()
		return err
	})
	if err != nil {
		return fmt.Errorf("rotate signing key: %w", err)
	}
	if err := k.hold(next); err != nil {
		return fmt.Errorf("rotate signing key: %w", err)
	}
	k.s.log.InfoContext(ctx, "signing key rotated", "kid", kid, "previous_kid", prev, "principal", p)
	k.s.hosts.Event(ctx, engine.Event{
		Name: eventKeyRotated, Severity: "info",
		Message: fmt.Sprintf("Signing key rotated: %s signs new tokens, %s still verifies until retired", kid, prev),
		Props:   map[string]string{"kid": kid, "previous_kid": prev, "by": p.String()},
	})
	writeJSON(w, http.StatusOK, k.current())
	return nil
}

// retire answers DELETE /v2/signing-keys/{kid}: tokens signed with kid are
// refused afterwards. The active key is a conflict (rotate first), an
// unknown kid not found. The state is written before the ring held here
// changes, so a failed write changes nothing.
func (k *keyAdmin) retire(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	ctx := r.Context()
	kid := r.PathValue("kid")
	k.mu.Lock()
	defer k.mu.Unlock()
	next, err := engine.UpdateKeyRing(ctx, k.s.store, func(ring *auth.KeyRing) error { return retireFrom(ring, kid) })
	if err != nil {
		return fmt.Errorf("retire signing key: %w", err)
	}
	if err := k.hold(next); err != nil {
		return fmt.Errorf("retire signing key: %w", err)
	}
	k.s.log.InfoContext(ctx, "signing key retired", "kid", kid, "principal", p)
	k.s.hosts.Event(ctx, engine.Event{
		Name: eventKeyRetired, Severity: "info",
		Message: fmt.Sprintf("Signing key %s retired: tokens it signed are refused", kid),
		Props:   map[string]string{"kid": kid, "by": p.String()},
	})
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// retireFrom retires kid from ring, or returns the API error for a kid
// that cannot be retired.
func retireFrom(ring *auth.KeyRing, kid string) error {
	switch {
	case kid == ring.ActiveKID():
		return fmt.Errorf("%w: signing key %s is the active key; rotate first", ErrConflict, kid)
	case !slices.Contains(ring.KIDs(), kid):
		return fmt.Errorf("%w: no signing key %q", ErrNotFound, hosts.Clip(kid))
	}
	if err := ring.Retire(kid); err != nil {
		return keyError(err)
	}
	return nil
}

// keyError maps the ring's refusal of a kid to the API's sentinels (the
// checks in without make it unlikely).
func keyError(err error) error {
	if errors.Is(err, auth.ErrUnknownKey) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return fmt.Errorf("%w: %w", ErrConflict, err)
}

// hold makes the ring held equal to next, the ring just stored;
// engine.FollowKeyRing may have done it already, which Replace repeats
// harmlessly.
func (k *keyAdmin) hold(next *auth.KeyRing) error {
	data, err := next.Marshal()
	if err != nil {
		return err
	}
	return k.s.keys.Replace(data)
}
