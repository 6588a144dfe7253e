package api

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

// monitoredStatuses are the statuses whose hosts the monitor re-evaluates
// (validations move only these).
func monitoredStatuses() []string {
	return []string{models.HostStatusDiscovering, models.HostStatusInsufficient, models.HostStatusKnown,
		models.HostStatusPendingForInput, models.HostStatusDisconnected,
		models.HostStatusDiscoveringUnbound, models.HostStatusInsufficientUnbound,
		models.HostStatusKnownUnbound, models.HostStatusDisconnectedUnbound}
}

// Monitor re-evaluates the validations and status of every host (and so
// its cluster) each interval (DefaultMonitorInterval when zero) until ctx
// is done: a host silent for longer than its thresholds' DisconnectAfter
// becomes disconnected, with an event. It writes to the store, so run it
// on the leader only (engine.WhileLeader). o is the handler's Options.
func Monitor(ctx context.Context, o Options, interval time.Duration) error {
	s, err := newServer(o)
	if err != nil {
		return err
	}
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
			o.MonitorLoop.Pass()
			if err := s.monitorPass(ctx); err != nil && ctx.Err() == nil {
				o.MonitorLoop.Error()
				s.log.WarnContext(ctx, "host monitor pass failed", "err", err)
			}
		}
	}
}

// monitorPass re-evaluates every monitored host once.
func (s *server) monitorPass(ctx context.Context) error {
	var ids []string
	s.store.Read(func(m *engine.Model) {
		for h := range m.Hosts() {
			if slices.Contains(monitoredStatuses(), h.Status) {
				ids = append(ids, h.ID)
			}
		}
	})
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.refreshHost(ctx, id); err != nil {
			return fmt.Errorf("monitor: %w", err)
		}
	}
	return nil
}
