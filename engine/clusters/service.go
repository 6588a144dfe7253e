package clusters

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
)

// ErrOptions: New was given unusable options.
var ErrOptions = errors.New("clusters: invalid options")

// Options is what the service needs.
type Options struct {
	// Store holds the model; required.
	Store engine.Store
	// Hosts evaluates the clusters' hosts and records events; required.
	Hosts *hosts.Service
	// Log receives what the service does that is worth a line (discarded
	// when nil).
	Log *slog.Logger
}

// Service registers, changes, installs and deletes clusters. It keeps no
// state of its own: everything goes through engine.Store commands.
type Service struct {
	store engine.Store
	hosts *hosts.Service
	log   *slog.Logger
}

// New returns the service over o's store. It writes to the store.
func New(o Options) (*Service, error) {
	switch {
	case o.Store == nil:
		return nil, fmt.Errorf("%w: no store", ErrOptions)
	case o.Hosts == nil:
		return nil, fmt.Errorf("%w: no host service", ErrOptions)
	}
	s := &Service{store: o.Store, hosts: o.Hosts, log: o.Log}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s, nil
}

// lookup returns cluster id from m, or hosts.ErrNotFound.
func lookup(m *engine.Model, id string) (engine.Cluster, error) {
	c, ok := m.Cluster(id)
	if !ok {
		return c, fmt.Errorf("%w: cluster %s", hosts.ErrNotFound, id)
	}
	return c, nil
}
