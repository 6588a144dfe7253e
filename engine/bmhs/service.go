package bmhs

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
)

// Options is what the service needs.
type Options struct {
	// Store holds the model; required.
	Store engine.Store
	// Hosts records events; required.
	Hosts *hosts.Service
	// Sealer seals BMC credentials before they are stored (nil: BMC
	// credentials are refused with ErrNoSealer).
	Sealer *engine.Sealer
	// Log receives failures that are not returned (discarded when nil).
	Log *slog.Logger
}

// Service creates, changes and deletes BareMetalHosts with their
// secrets. It keeps no state of its own.
type Service struct {
	store  engine.Store
	hosts  *hosts.Service
	sealer *engine.Sealer
	log    *slog.Logger
}

// ErrOptions: New was given unusable options.
var ErrOptions = errors.New("bmhs: invalid options")

// New returns the service over o's store. It writes to the store.
func New(o Options) (*Service, error) {
	switch {
	case o.Store == nil:
		return nil, fmt.Errorf("%w: no store", ErrOptions)
	case o.Hosts == nil:
		return nil, fmt.Errorf("%w: no host service", ErrOptions)
	}
	s := &Service{store: o.Store, hosts: o.Hosts, sealer: o.Sealer, log: o.Log}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s, nil
}

// ErrNoSealer: credentials came but the daemon has no sealing key.
var ErrNoSealer = errors.New("api: no secret sealer configured: cannot store BMC credentials")

// Get returns BareMetalHost name.
func (s *Service) Get(name string) (engine.BareMetalHost, error) {
	var (
		b  engine.BareMetalHost
		ok bool
	)
	s.store.Read(func(m *engine.Model) { b, ok = m.BareMetalHost(name) })
	if !ok {
		return b, fmt.Errorf("%w: baremetal host %s", hosts.ErrNotFound, hosts.Clip(name))
	}
	return b, nil
}
