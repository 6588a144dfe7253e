package hosts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

// Status infos of a host registering mid-install (upstream's texts).
const (
	infoRebootedDiscover = "Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk"
	infoRestarted        = "Host failed to install: the host unexpectedly restarted during the installation"
)

// installingStatuses are the host statuses in which registering again
// would lose an installation in progress: registration is refused (409).
func installingStatuses() []string {
	return []string{models.HostStatusPreparingForInstallation, models.HostStatusPreparingSuccessful,
		models.HostStatusInstalling, models.HostStatusInstallingInProgress,
		models.HostStatusInstallingPendingUserAction, models.HostStatusInstalled,
		models.HostStatusBinding, models.HostStatusUnbinding}
}

// Register registers host id in infra-env ie as its agent asks to (with
// the agent's version, and props for the event): a new host, or one
// registering again, starts discovering, and every periodic step is due
// again; a host installing that booted the discovery image is answered
// by its install state instead (reRegistered); a host of another
// infra-env, one whose installation would be lost, or one of a cluster
// that installs is refused (ErrConflict).
func (s *Service) Register(ctx context.Context, ieID, id, version string, props map[string]string) error {
	ie, err := s.InfraEnv(ieID)
	if err != nil {
		return err
	}
	var (
		old    engine.Host
		exists bool
	)
	s.store.Read(func(m *engine.Model) { old, exists = m.Host(id) })
	if exists && old.InfraEnvID != ieID {
		return fmt.Errorf("%w: host %s is registered in another infra-env", ErrConflict, id)
	}
	if exists {
		if done, err := s.reRegistered(ctx, old); err != nil || done {
			return err
		}
	}
	if exists && slices.Contains(installingStatuses(), old.Status) {
		return fmt.Errorf("%w: host %s is %s and cannot register again", ErrConflict, id, old.Status)
	}
	if err := s.acceptRegistration(ie.ClusterID, old.ClusterID); err != nil {
		return err
	}
	status := models.HostStatusDiscoveringUnbound
	if ie.ClusterID != "" || old.ClusterID != "" {
		status = models.HostStatusDiscovering
	}
	h := engine.Host{ID: id, InfraEnvID: ieID, Status: status,
		StatusInfo: validation.StatusInfoDiscovering, AgentVersion: version}
	s.ForgetSteps(id)
	registered := &engine.Event{Name: "host_registration_succeeded", Severity: "info",
		Message: fmt.Sprintf("Host %s: Successfully registered", h.ID), Props: props}
	res, err := s.store.Apply(ctx, &engine.RegisterHost{Host: h, Event: registered})
	if err != nil {
		return fmt.Errorf("register host: %w", err)
	}
	h, _ = res.(engine.Host)
	s.log.InfoContext(ctx, "host registered", "host", h.ID, "infra_env", ieID, "agent_version", version)
	return s.Refresh(ctx, h.ID)
}

// acceptRegistration refuses hosts while their cluster installs, as
// upstream (409): only a cluster that is still being assembled takes
// (re-)registrations.
func (s *Service) acceptRegistration(clusterIDs ...string) error {
	for _, id := range clusterIDs {
		if id == "" {
			continue
		}
		var c engine.Cluster
		s.store.Read(func(m *engine.Model) { c, _ = m.Cluster(id) })
		switch c.Status {
		case "", validation.ClusterStatusInsufficient, validation.ClusterStatusReady,
			validation.ClusterStatusPendingForInput, "adding-hosts":
		default:
			return fmt.Errorf("%w: cluster %s is %s and accepts no host registration", ErrConflict, id, c.Status)
		}
	}
	return nil
}

// reRegistered reports a host that registers again while installing: its
// agent runs in the discovery image again. It is not restarted. Past
// Rebooting it did not boot its disk: installing-pending-user-action (its
// cluster follows) until it does; before, the host restarted mid-install:
// error, as upstream. Either way with the reason and an event. done is
// true when the registration was answered that way.
func (s *Service) reRegistered(ctx context.Context, old engine.Host) (bool, error) {
	if old.Status != models.HostStatusInstalling && old.Status != models.HostStatusInstallingInProgress {
		return false, nil
	}
	status, info, sev := models.HostStatusInstallingPendingUserAction, infoRebootedDiscover, "warning"
	if !engine.PastRebooting(old.Progress.CurrentStage) {
		status, info, sev = models.HostStatusError, infoRestarted, "error"
	}
	_, err := s.store.Apply(ctx, &engine.InstallTransition{ClusterID: old.ClusterID, Hosts: []engine.HostChange{{
		ID: old.ID, Status: status, Info: info, From: []string{old.Status}}}})
	if err != nil {
		return false, fmt.Errorf("host %s registered mid-install: %w", old.ID, err)
	}
	s.log.WarnContext(ctx, "host registered again while installing", "host", old.ID, "stage", old.Progress.CurrentStage)
	s.Event(ctx, engine.Event{Name: "host_registered_during_installation", Severity: sev, ClusterID: old.ClusterID,
		InfraEnvID: old.InfraEnvID, HostID: old.ID,
		Message: fmt.Sprintf("Host %s: booted the discovery image during installation (stage %q): %s",
			s.HostName(old), old.Progress.CurrentStage, info)})
	return true, nil
}

// clockVerdictMoved reports whether the host's clock, reported as next
// instead of prev, lands on the other side of the service's tolerance
// (time-synced-between-host-and-service).
func clockVerdictMoved(prev, next int64, now time.Time) bool {
	ok := func(ts int64) bool {
		if ts == 0 {
			return false
		}
		return validation.ValidateHost(validation.HostFacts{HostTime: ts, Now: now}, validation.DefaultThresholds()).
			Passed(validation.HostTimeSyncedWithService)
	}
	return prev == 0 || ok(prev) != ok(next)
}

// CheckIn records that h's agent polled now, with its clock (hostTime,
// unix seconds; nil when it sent none), and re-evaluates h at once when it
// comes back from disconnected or its clock lands on the other side of the
// service's tolerance, rather than at the monitor's next pass.
func (s *Service) CheckIn(ctx context.Context, h engine.Host, hostTime *int64) error {
	now := s.now()
	if _, err := s.store.Apply(ctx, &engine.UpdateHost{ID: h.ID, InfraEnvID: h.InfraEnvID,
		Patch: engine.HostPatch{CheckedInAt: &now, HostTime: hostTime}}); err != nil {
		return fmt.Errorf("check in host: %w", err)
	}
	if h.Status == models.HostStatusDisconnected || h.Status == models.HostStatusDisconnectedUnbound ||
		hostTime != nil && clockVerdictMoved(h.HostTime, *hostTime, now) {
		return s.Refresh(ctx, h.ID)
	}
	return nil
}

// NextSteps are the steps h runs now apart from the install step: the
// inventory when due, the periodic steps due, and the installation disk
// speed check while it prepares for installation.
func (s *Service) NextSteps(h engine.Host) ([]*models.Step, error) {
	now := s.now()
	var out []*models.Step
	if s.InventoryDue(h, now) {
		out = append(out, &models.Step{StepType: models.StepTypeInventory, StepID: StepID(models.StepTypeInventory), Args: []string{h.ID}})
	}
	periodic, err := s.PeriodicSteps(h)
	if err != nil {
		return nil, err
	}
	out = append(out, periodic...)
	speed, err := s.DiskSpeedStep(h, now)
	if err != nil {
		return nil, err
	}
	if speed != nil {
		out = append(out, speed)
	}
	return out, nil
}

// StepFailed records that h's step failed (a log line and an event).
func (s *Service) StepFailed(ctx context.Context, h engine.Host, t models.StepType, stepID string, exitCode int64) {
	s.log.WarnContext(ctx, "step failed", "host", h.ID, "step_type", t, "step_id", stepID, "exit_code", exitCode)
	s.Event(ctx, engine.Event{Name: "host_step_failed", Severity: "warning", ClusterID: h.ClusterID,
		InfraEnvID: h.InfraEnvID, HostID: h.ID, Message: fmt.Sprintf("Host %s: step %s (%s) failed with exit code %d",
			s.HostName(h), t, stepID, exitCode)})
}

// StoreInventory stores inventory, the compacted JSON of an inventory
// reply that the caller checked, on h when it changed, picks h's
// installation disk if it has none, and re-evaluates h.
func (s *Service) StoreInventory(ctx context.Context, h engine.Host, inventory json.RawMessage) error {
	if bytes.Equal(inventory, h.Inventory) {
		return nil // a periodic refresh that found nothing new: nothing to write
	}
	now := s.now()
	patch := engine.HostPatch{Inventory: inventory, CheckedInAt: &now}
	if disk := s.DefaultDisk(h, inventory); disk != "" {
		patch.InstallationDiskID = &disk
	}
	update := &engine.UpdateHost{ID: h.ID, InfraEnvID: h.InfraEnvID, Patch: patch}
	if len(h.Inventory) == 0 {
		update.Event = &engine.Event{Name: "host_inventory_received", Severity: "info",
			Message: fmt.Sprintf("Host %s: inventory received", h.ID)}
	}
	if _, err := s.store.Apply(ctx, update); err != nil {
		return fmt.Errorf("store inventory: %w", err)
	}
	s.log.InfoContext(ctx, "inventory received", "host", h.ID, "infra_env", h.InfraEnvID, "bytes", len(inventory))
	return s.Refresh(ctx, h.ID)
}
