package hosts

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

// ErrOptions: New was given unusable options.
var ErrOptions = errors.New("hosts: invalid options")

// Options is what the service needs.
type Options struct {
	// Store holds the model; required.
	Store engine.Store
	// Thresholds returns the hardware minimums of a cluster whose image set
	// has no thresholds of its own (clusterID is "" for an unbound host
	// whose infra-env's image set has none); nil means upstream's. An image
	// set's thresholds (engine.ImageSet.Thresholds) replace these, keeping
	// their DisconnectAfter.
	Thresholds func(m *engine.Model, clusterID string) validation.Thresholds
	// Now is the clock of the validations and the step schedule (time.Now
	// when nil).
	Now func() time.Time
	// Log receives failures that are not returned (discarded when nil).
	Log *slog.Logger
	// StepInterval is how long a host is not handed the same periodic
	// step (connectivity-check, ntp-synchronizer, domain-resolution) with
	// unchanged arguments again (DefaultStepInterval when zero).
	StepInterval time.Duration
}

// Service evaluates hosts and clusters, schedules the agents' periodic
// steps and keeps their outputs. Besides its options it holds caches that
// only save work (decoded inventories and connectivity reports, each
// cluster's majority groups) and when it last handed each host each
// periodic step; none of it is replicated.
type Service struct {
	store      engine.Store
	thresholds func(m *engine.Model, clusterID string) validation.Thresholds
	now        func() time.Time
	log        *slog.Logger
	inv        *invCache
	conn       *docCache[models.ConnectivityReport]
	nets       *netCache
	steps      *stepSchedule
	stepEvery  time.Duration
}

// New returns the service over o's store. It writes to the store.
func New(o Options) (*Service, error) {
	if o.Store == nil {
		return nil, fmt.Errorf("%w: no store", ErrOptions)
	}
	s := &Service{
		store: o.Store, thresholds: o.Thresholds, now: o.Now, log: o.Log, inv: &invCache{},
		conn: &docCache[models.ConnectivityReport]{}, nets: &netCache{}, steps: &stepSchedule{},
		stepEvery: o.StepInterval,
	}
	if s.stepEvery <= 0 {
		s.stepEvery = DefaultStepInterval
	}
	if s.thresholds == nil {
		s.thresholds = func(*engine.Model, string) validation.Thresholds { return validation.DefaultThresholds() }
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s, nil
}

// Inventory returns h's decoded inventory (shared: read-only); nil when it
// has none.
func (s *Service) Inventory(h engine.Host) *models.Inventory { return s.inv.get(h) }

// Connectivity returns h's decoded connectivity report (shared:
// read-only); nil when it has none.
func (s *Service) Connectivity(h engine.Host) *models.ConnectivityReport {
	return s.conn.lookup(h.ID, h.Connectivity)
}

// HostName is the host's name in event messages: its hostname, else id.
func (s *Service) HostName(h engine.Host) string {
	if n := (validation.HostFacts{RequestedHostname: h.RequestedHostname, Inventory: s.inv.get(h)}).Hostname(); n != "" {
		return n
	}
	return h.ID
}

// Event appends an event; failing to record one is logged, not fatal.
func (s *Service) Event(ctx context.Context, e engine.Event) {
	if _, err := s.store.Apply(ctx, &engine.AppendEvent{Event: e}); err != nil {
		s.log.WarnContext(ctx, "event not recorded", "name", e.Name, "err", err)
	}
}

// StepID returns "<type>-<8 hex>", as upstream.
func StepID(t models.StepType) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return string(t) + "-" + hex.EncodeToString(b[:])
}
