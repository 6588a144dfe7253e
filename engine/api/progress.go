package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// maxProgressInfo bounds progress_info (upstream keeps a short text).
const maxProgressInfo = 1024

// checkProgress accepts a known stage (or Failed) and a printable info.
func checkProgress(p models.HostProgress) error {
	if engine.StageIndex(string(p.CurrentStage)) < 0 && p.CurrentStage != models.HostStageFailed {
		return badRequest("current_stage %q is not an installation stage", hosts.Clip(string(p.CurrentStage)))
	}
	if len(p.ProgressInfo) > maxProgressInfo || strings.ContainsFunc(p.ProgressInfo, unicode.IsControl) {
		return badRequest("progress_info is longer than %d bytes or holds control characters", maxProgressInfo)
	}
	return nil
}

// authorizeProgress accepts the admin, an agent of the path's infra-env or
// the host-scoped token of the path's host.
func (s *server) authorizeProgress(r *http.Request) (auth.Principal, error) {
	ie, id := r.PathValue("infra_env_id"), r.PathValue("host_id")
	p, err := auth.Authenticate(r, s.admin, s.keys)
	if errors.Is(err, auth.ErrInvalidToken) {
		cred, cerr := auth.CredentialFromRequest(r)
		if cerr != nil {
			return auth.Principal{}, err
		}
		if hp, herr := s.keys.VerifyHost(cred.Token); herr == nil {
			p, err = hp, nil
		}
	}
	if err != nil {
		return auth.Principal{}, err
	}
	return p, p.AllowHost(ie, id)
}

func (s *server) updateProgress(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ie, id := r.PathValue("infra_env_id"), r.PathValue("host_id")
	var p models.HostProgress
	if err := decode(w, r, maxBody, &p); err != nil {
		return err
	}
	if err := checkProgress(p); err != nil {
		return err
	}
	if _, err := s.hosts.Host(ie, id); err != nil {
		return err
	}
	ctx := r.Context()
	v, err := s.store.Apply(ctx, &engine.InstallProgress{ID: id, InfraEnvID: ie, Stage: string(p.CurrentStage), Info: p.ProgressInfo})
	if err != nil {
		return fmt.Errorf("install progress: %w", err)
	}
	res, _ := v.(engine.ProgressResult)
	s.progressEvents(ctx, res, p)
	w.WriteHeader(http.StatusOK)
	return nil
}

// progressEvents records a new stage, a status change and a failure.
func (s *server) progressEvents(ctx context.Context, res engine.ProgressResult, p models.HostProgress) {
	h := res.Host
	base := engine.Event{ClusterID: h.ClusterID, InfraEnvID: h.InfraEnvID, HostID: h.ID}
	if res.PrevStage != h.Progress.CurrentStage {
		e := base
		e.Name, e.Severity = "host_install_progress_updated", "info"
		e.Message = fmt.Sprintf("Host %s: reached installation stage %s", s.hosts.HostName(h), h.Progress.CurrentStage)
		if p.ProgressInfo != "" {
			e.Message += ": " + p.ProgressInfo
		}
		if p.CurrentStage == models.HostStageFailed {
			e.Severity = "error"
		}
		s.hosts.Event(ctx, e)
		s.log.InfoContext(ctx, "install progress", "host", h.ID, "infra_env", h.InfraEnvID, "stage", h.Progress.CurrentStage)
	}
	if res.PrevStatus != h.Status {
		e := base
		e.Name, e.Severity = "host_status_updated", hosts.SeverityOf(h.Status)
		if h.Status == models.HostStatusError {
			e.Severity = "error"
		}
		e.Message = fmt.Sprintf("Host %s: updated status from %s to %s (%s)", s.hosts.HostName(h), res.PrevStatus, h.Status, h.StatusInfo)
		s.hosts.Event(ctx, e)
	}
	if p.CurrentStage == models.HostStageFailed && !h.Day2 {
		var c engine.Cluster
		s.store.Read(func(m *engine.Model) { c, _ = m.Cluster(h.ClusterID) })
		if c.Status == engine.ClusterStatusError {
			s.hosts.Event(ctx, engine.Event{Name: "cluster_status_updated", Severity: "critical", ClusterID: c.ID,
				Message: fmt.Sprintf("Updated status of the cluster to error (%s)", c.StatusInfo)})
		}
	}
}

// installStatuses are the host statuses whose agent may fetch its install
// Ignition.
func installStatuses() []string {
	return []string{models.HostStatusInstalling, models.HostStatusInstallingInProgress}
}

// installStep hands h the install step when it is installing: once, as it
// moves the host to installing-in-progress at the same time (a host that
// already has it is not handed it again). nil: no step now.
func (s *server) installStep(ctx context.Context, h engine.Host) (*models.Step, error) {
	if h.Status != models.HostStatusInstalling {
		return nil, nil
	}
	args, err := s.installArgs(h)
	if err != nil {
		return nil, err
	}
	_, err = s.store.Apply(ctx, &engine.InstallTransition{ClusterID: h.ClusterID, Hosts: []engine.HostChange{{
		ID: h.ID, Status: models.HostStatusInstallingInProgress, Info: "Installation is in progress",
		From: []string{models.HostStatusInstalling}}}})
	if errors.Is(err, engine.ErrConflict) {
		return nil, nil // another poll handed it out first
	}
	if err != nil {
		return nil, fmt.Errorf("hand out the install step: %w", err)
	}
	s.hosts.Event(ctx, engine.Event{Name: "host_install_step_sent", Severity: "info", ClusterID: h.ClusterID,
		InfraEnvID: h.InfraEnvID, HostID: h.ID,
		Message: fmt.Sprintf("Host %s: install step sent (disk %s, role %s)", s.hosts.HostName(h), args.BootDevice, args.Role)})
	b, err := jsonString(args)
	if err != nil {
		return nil, err
	}
	return &models.Step{StepType: models.StepTypeInstall, StepID: hosts.StepID(models.StepTypeInstall), Args: []string{b}}, nil
}
