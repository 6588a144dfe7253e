package hosts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/install"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

// DiskCheckTimeout is how long a host preparing for installation is given
// to measure its installation disk before it is asked again (upstream's
// DISK_CHECK_TIMEOUT).
const DiskCheckTimeout = 8 * time.Minute

// disksInfo is upstream's disks_info document.
type disksInfo map[string]diskInfo

type diskInfo struct {
	DiskSpeed *diskSpeed `json:"disk_speed,omitempty"`
}

type diskSpeed struct {
	Tested   bool  `json:"tested"`
	ExitCode int64 `json:"exit_code"`
	SpeedMs  int64 `json:"speed_ms,omitempty"`
}

func decodeDisksInfo(raw json.RawMessage) disksInfo {
	out := disksInfo{}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &out) // written by storeDiskSpeed only
	}
	return out
}

// installDiskSpeed is the measured speed of h's installation disk; nil
// when it was never measured.
func installDiskSpeed(h engine.Host) *validation.DiskSpeed {
	path := install.HostDetails(h).BootDevice()
	d, ok := decodeDisksInfo(h.DisksInfo)[path]
	if path == "" || !ok || d.DiskSpeed == nil {
		return nil
	}
	return &validation.DiskSpeed{Path: path, Tested: d.DiskSpeed.Tested, ExitCode: d.DiskSpeed.ExitCode, SpeedMs: d.DiskSpeed.SpeedMs}
}

// DiskSpeedStep is the installation-disk-speed-check h runs now: as
// upstream's next-steps, while it prepares for installation and its
// installation disk has not been measured, at most once per
// DiskCheckTimeout, with its thresholds' DiskSpeedThresholdMs.
func (s *Service) DiskSpeedStep(h engine.Host, now time.Time) (*models.Step, error) {
	if h.Status != models.HostStatusPreparingForInstallation {
		return nil, nil
	}
	path := install.HostDetails(h).BootDevice()
	if path == "" || installDiskSpeed(h) != nil {
		return nil, nil
	}
	if !s.steps.due(h.ID, models.StepTypeInstallationDiskSpeedCheck, path, now, DiskCheckTimeout) {
		return nil, nil
	}
	threshold := int64(validation.DiskSpeedThresholdMs)
	s.store.Read(func(m *engine.Model) {
		if t := s.HostThresholds(m, h).DiskSpeedThresholdMs; t > 0 {
			threshold = t
		}
	})
	b, err := json.Marshal(models.DiskSpeedCheckRequest{Path: path, ThresholdMs: threshold})
	if err != nil {
		return nil, fmt.Errorf("encode %s arguments: %w", models.StepTypeInstallationDiskSpeedCheck, err)
	}
	return &models.Step{StepType: models.StepTypeInstallationDiskSpeedCheck,
		StepID: StepID(models.StepTypeInstallationDiskSpeedCheck), Args: []string{string(b)}}, nil
}

// InstallationDisk is the path of h's installation disk ("" when it has
// none), which an installation-disk-speed-check reply without a path
// measured.
func InstallationDisk(h engine.Host) string { return install.HostDetails(h).BootDevice() }

// StoreDiskSpeed records an installation-disk-speed-check reply (the
// step's exit code and its checked output, whose Path the caller set),
// failed or not (a disk found too slow fails the step), in h's
// disks_info, and re-evaluates h; a failure while h prepares for
// installation stops its cluster's preparation.
func (s *Service) StoreDiskSpeed(ctx context.Context, h engine.Host, exitCode int64, out models.DiskSpeedCheckResponse) error {
	info := decodeDisksInfo(h.DisksInfo)
	info[out.Path] = diskInfo{DiskSpeed: &diskSpeed{Tested: true, ExitCode: exitCode, SpeedMs: out.IoSyncDuration}}
	raw, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("encode disks_info: %w", err)
	}
	if _, err := s.store.Apply(ctx, &engine.UpdateHost{ID: h.ID, InfraEnvID: h.InfraEnvID,
		Patch: engine.HostPatch{DisksInfo: raw}}); err != nil {
		return fmt.Errorf("store disk speed: %w", err)
	}
	s.log.InfoContext(ctx, "installation disk speed", "host", h.ID, "infra_env", h.InfraEnvID, "disk", out.Path,
		"speed_ms", out.IoSyncDuration, "exit_code", exitCode)
	if exitCode != 0 && h.Status == models.HostStatusPreparingForInstallation {
		if err := s.abortPreparation(ctx, h); err != nil {
			return err
		}
	}
	return s.Refresh(ctx, h.ID)
}

// abortPreparation stops the preparation of h's cluster because h's
// installation disk is too slow, as upstream's state machine does: h
// becomes insufficient, the cluster's other preparing hosts known again,
// the cluster insufficient (its install clock cleared); the validations
// then decide. An installation that already started is left alone.
func (s *Service) abortPreparation(ctx context.Context, h engine.Host) error {
	var changes []engine.HostChange
	s.store.Read(func(m *engine.Model) {
		for o := range m.HostsOfCluster(h.ClusterID) {
			if o.Status != models.HostStatusPreparingForInstallation {
				continue
			}
			st, info := models.HostStatusKnown, validation.StatusInfoKnown
			if o.ID == h.ID {
				st, info = models.HostStatusInsufficient, diskSpeedInfo
			}
			changes = append(changes, engine.HostChange{ID: o.ID, Status: st, Info: info, Reset: true,
				From: []string{models.HostStatusPreparingForInstallation}})
		}
	})
	_, err := s.store.Apply(ctx, &engine.InstallTransition{ClusterID: h.ClusterID, Hosts: changes,
		Cluster: &engine.StatusChange{Status: validation.ClusterStatusInsufficient, Info: validation.ClusterStatusInfoInsufficient,
			From: []string{engine.ClusterStatusPreparingForInstallation}, Clear: true}})
	if errors.Is(err, engine.ErrConflict) {
		return nil // the cluster went on (or back) meanwhile
	}
	if err != nil {
		return fmt.Errorf("stop the preparation of cluster %s: %w", h.ClusterID, err)
	}
	s.log.WarnContext(ctx, "installation disk too slow: preparation stopped", "host", h.ID, "infra_env", h.InfraEnvID,
		"cluster", h.ClusterID)
	s.Event(ctx, engine.Event{Name: "cluster_status_updated", Severity: "warning", ClusterID: h.ClusterID,
		Message: fmt.Sprintf("Updated status of the cluster to %s: host %s's installation disk is too slow",
			validation.ClusterStatusInsufficient, s.HostName(h))})
	for _, c := range changes {
		if err := s.Refresh(ctx, c.ID); err != nil {
			return err
		}
	}
	return nil
}

// diskSpeedInfo is the status_info of a host whose disk check failed
// while preparing (upstream's not-ready-for-install text).
const diskSpeedInfo = "Host cannot be installed due to following failing validation(s): " +
	"While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient"

// DisksInfoWithout is h's disks_info without the speed measurement of
// its installation disk (the reset-validation action).
func DisksInfoWithout(h engine.Host) (json.RawMessage, error) {
	info := decodeDisksInfo(h.DisksInfo)
	delete(info, InstallationDisk(h))
	raw, err := json.Marshal(info)
	if err != nil {
		return nil, fmt.Errorf("encode disks_info: %w", err)
	}
	return raw, nil
}
