package signingkeys

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/hosts"
)

// Event names of rotations and retirements.
const (
	EventRotated = "signing_key_rotated"
	EventRetired = "signing_key_retired"
)

// ErrOptions: New was given unusable options.
var ErrOptions = errors.New("signingkeys: invalid options")

// Options is what the service needs.
type Options struct {
	// Store holds the replicated key ring; required.
	Store engine.Store
	// Keys is the ring held in memory, which signs and verifies; required.
	Keys *auth.KeyRing
	// Hosts records events; required.
	Hosts *hosts.Service
	// Log receives a line per rotation and retirement (discarded when nil).
	Log *slog.Logger
}

// Service rotates and retires the signing keys of agent and image
// tokens. mu serializes rotations and retirements, so the ring stored
// after one is the ring held in memory.
type Service struct {
	store engine.Store
	keys  *auth.KeyRing
	hosts *hosts.Service
	log   *slog.Logger
	mu    sync.Mutex
}

// New returns the service over o's store and ring.
func New(o Options) (*Service, error) {
	switch {
	case o.Store == nil:
		return nil, fmt.Errorf("%w: no store", ErrOptions)
	case o.Keys == nil:
		return nil, fmt.Errorf("%w: no key ring", ErrOptions)
	case o.Hosts == nil:
		return nil, fmt.Errorf("%w: no host service", ErrOptions)
	}
	s := &Service{store: o.Store, keys: o.Keys, hosts: o.Hosts, log: o.Log}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s, nil
}

// Current returns the active key's id and the ids of every key held.
func (s *Service) Current() (active string, kids []string) {
	return s.keys.ActiveKID(), s.keys.KIDs()
}

// Rotate makes a new key sign from now on; the keys held before keep
// verifying (agents in flight keep working) until retired. The ring is
// changed in the replicated state (engine.UpdateKeyRing, from any
// appliance of a rack) and then held here; by names who asked, for the
// log and the event.
func (s *Service) Rotate(ctx context.Context, by string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var prev, kid string
	next, err := engine.UpdateKeyRing(ctx, s.store, func(ring *auth.KeyRing) (err error) {
		prev = ring.ActiveKID()
		kid, err = ring.Rotate()
		return err
	})
	if err != nil {
		return fmt.Errorf("rotate signing key: %w", err)
	}
	if err := s.hold(next); err != nil {
		return fmt.Errorf("rotate signing key: %w", err)
	}
	s.log.InfoContext(ctx, "signing key rotated", "kid", kid, "previous_kid", prev, "principal", by)
	s.hosts.Event(ctx, engine.Event{
		Name: EventRotated, Severity: "info",
		Message: fmt.Sprintf("Signing key rotated: %s signs new tokens, %s still verifies until retired", kid, prev),
		Props:   map[string]string{"kid": kid, "previous_kid": prev, "by": by},
	})
	return nil
}

// Retire retires key kid: tokens it signed are refused afterwards. The
// active key is a conflict (rotate first), an unknown kid not found. The
// state is written before the ring held here changes, so a failed write
// changes nothing.
func (s *Service) Retire(ctx context.Context, kid, by string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next, err := engine.UpdateKeyRing(ctx, s.store, func(ring *auth.KeyRing) error { return retireFrom(ring, kid) })
	if err != nil {
		return fmt.Errorf("retire signing key: %w", err)
	}
	if err := s.hold(next); err != nil {
		return fmt.Errorf("retire signing key: %w", err)
	}
	s.log.InfoContext(ctx, "signing key retired", "kid", kid, "principal", by)
	s.hosts.Event(ctx, engine.Event{
		Name: EventRetired, Severity: "info",
		Message: fmt.Sprintf("Signing key %s retired: tokens it signed are refused", kid),
		Props:   map[string]string{"kid": kid, "by": by},
	})
	return nil
}

// retireFrom retires kid from ring, or refuses a kid that cannot be
// retired.
func retireFrom(ring *auth.KeyRing, kid string) error {
	switch {
	case kid == ring.ActiveKID():
		return fmt.Errorf("%w: signing key %s is the active key; rotate first", hosts.ErrConflict, kid)
	case !slices.Contains(ring.KIDs(), kid):
		return fmt.Errorf("%w: no signing key %q", hosts.ErrNotFound, hosts.Clip(kid))
	}
	if err := ring.Retire(kid); err != nil {
		return keyError(err)
	}
	return nil
}

// keyError maps the ring's refusal of a kid to the domain's refusals (the
// checks in retireFrom make it unlikely).
func keyError(err error) error {
	if errors.Is(err, auth.ErrUnknownKey) {
		return fmt.Errorf("%w: %w", hosts.ErrNotFound, err)
	}
	return fmt.Errorf("%w: %w", hosts.ErrConflict, err)
}

// hold makes the ring held equal to next, the ring just stored;
// engine.FollowKeyRing may have done it already, which Replace repeats
// harmlessly.
func (s *Service) hold(next *auth.KeyRing) error {
	data, err := next.Marshal()
	if err != nil {
		return err
	}
	return s.keys.Replace(data)
}
