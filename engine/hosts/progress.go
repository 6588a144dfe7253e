package hosts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// MaxProgressInfo bounds progress_info (upstream keeps a short text).
const MaxProgressInfo = 1024

// CheckProgress accepts a known stage (or Failed) and a printable info.
func CheckProgress(p models.HostProgress) error {
	if engine.StageIndex(string(p.CurrentStage)) < 0 && p.CurrentStage != models.HostStageFailed {
		return Invalid("current_stage %q is not an installation stage", Clip(string(p.CurrentStage)))
	}
	if len(p.ProgressInfo) > MaxProgressInfo || strings.ContainsFunc(p.ProgressInfo, unicode.IsControl) {
		return Invalid("progress_info is longer than %d bytes or holds control characters", MaxProgressInfo)
	}
	return nil
}

// Progress records installation progress p of host id of infra-env ie
// (a known stage, or Failed, with a short printable info), with the events
// of a new stage, a status change and a failed installation.
func (s *Service) Progress(ctx context.Context, ie, id string, p models.HostProgress) error {
	if err := CheckProgress(p); err != nil {
		return err
	}
	if _, err := s.Host(ie, id); err != nil {
		return err
	}
	v, err := s.store.Apply(ctx, &engine.InstallProgress{ID: id, InfraEnvID: ie, Stage: string(p.CurrentStage), Info: p.ProgressInfo})
	if err != nil {
		return fmt.Errorf("install progress: %w", err)
	}
	res, _ := v.(engine.ProgressResult)
	s.progressEvents(ctx, res, p)
	return nil
}

// progressEvents records a new stage, a status change and a failure.
func (s *Service) progressEvents(ctx context.Context, res engine.ProgressResult, p models.HostProgress) {
	h := res.Host
	base := engine.Event{ClusterID: h.ClusterID, InfraEnvID: h.InfraEnvID, HostID: h.ID}
	if res.PrevStage != h.Progress.CurrentStage {
		e := base
		e.Name, e.Severity = "host_install_progress_updated", "info"
		e.Message = fmt.Sprintf("Host %s: reached installation stage %s", s.HostName(h), h.Progress.CurrentStage)
		if p.ProgressInfo != "" {
			e.Message += ": " + p.ProgressInfo
		}
		if p.CurrentStage == models.HostStageFailed {
			e.Severity = "error"
		}
		s.Event(ctx, e)
		s.log.InfoContext(ctx, "install progress", "host", h.ID, "infra_env", h.InfraEnvID, "stage", h.Progress.CurrentStage)
	}
	if res.PrevStatus != h.Status {
		e := base
		e.Name, e.Severity = "host_status_updated", SeverityOf(h.Status)
		if h.Status == models.HostStatusError {
			e.Severity = "error"
		}
		e.Message = fmt.Sprintf("Host %s: updated status from %s to %s (%s)", s.HostName(h), res.PrevStatus, h.Status, h.StatusInfo)
		s.Event(ctx, e)
	}
	if p.CurrentStage == models.HostStageFailed && !h.Day2 {
		var c engine.Cluster
		s.store.Read(func(m *engine.Model) { c, _ = m.Cluster(h.ClusterID) })
		if c.Status == engine.ClusterStatusError {
			s.Event(ctx, engine.Event{Name: "cluster_status_updated", Severity: "critical", ClusterID: c.ID,
				Message: fmt.Sprintf("Updated status of the cluster to error (%s)", c.StatusInfo)})
		}
	}
}

// InstallStepSent moves installing host h to installing-in-progress as its
// install step (onto disk, as role) is handed out, with its event, so that
// it is handed out once; false when another poll handed it out first.
func (s *Service) InstallStepSent(ctx context.Context, h engine.Host, disk, role string) (bool, error) {
	_, err := s.store.Apply(ctx, &engine.InstallTransition{ClusterID: h.ClusterID, Hosts: []engine.HostChange{{
		ID: h.ID, Status: models.HostStatusInstallingInProgress, Info: "Installation is in progress",
		From: []string{models.HostStatusInstalling}}}})
	if errors.Is(err, engine.ErrConflict) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("hand out the install step: %w", err)
	}
	s.Event(ctx, engine.Event{Name: "host_install_step_sent", Severity: "info", ClusterID: h.ClusterID,
		InfraEnvID: h.InfraEnvID, HostID: h.ID,
		Message: fmt.Sprintf("Host %s: install step sent (disk %s, role %s)", s.HostName(h), disk, role)})
	return true, nil
}
