package hosts

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// DefaultMonitorInterval is how often Monitor re-evaluates hosts
// (upstream's host monitor runs every few seconds; the disconnection
// timeout is minutes).
const DefaultMonitorInterval = 10 * time.Second

// MonitoredStatuses are the statuses whose hosts the monitor re-evaluates
// (validations move only these).
func MonitoredStatuses() []string {
	return []string{models.HostStatusDiscovering, models.HostStatusInsufficient, models.HostStatusKnown,
		models.HostStatusPendingForInput, models.HostStatusDisconnected,
		models.HostStatusDiscoveringUnbound, models.HostStatusInsufficientUnbound,
		models.HostStatusKnownUnbound, models.HostStatusDisconnectedUnbound}
}

// Monitor re-evaluates the validations and status of every host (and so
// its cluster) each interval (DefaultMonitorInterval when zero) until ctx
// is done: a host silent for longer than its thresholds' DisconnectAfter
// becomes disconnected, with an event. It writes to the store, so run it
// on the leader only (engine.WhileLeader). loop counts its passes and
// failed passes (nil: not counted).
func (s *Service) Monitor(ctx context.Context, interval time.Duration, loop *engine.LoopStats) error {
	if interval <= 0 {
		interval = DefaultMonitorInterval
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			loop.Pass()
			if err := s.monitorPass(ctx); err != nil && ctx.Err() == nil {
				loop.Error()
				s.log.WarnContext(ctx, "host monitor pass failed", "err", err)
			}
		}
	}
}

// monitorPass re-evaluates every monitored host once.
func (s *Service) monitorPass(ctx context.Context) error {
	var ids []string
	s.store.Read(func(m *engine.Model) {
		for h := range m.Hosts() {
			if slices.Contains(MonitoredStatuses(), h.Status) {
				ids = append(ids, h.ID)
			}
		}
	})
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.Refresh(ctx, id); err != nil {
			return fmt.Errorf("monitor: %w", err)
		}
	}
	return nil
}
