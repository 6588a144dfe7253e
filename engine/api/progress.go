package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

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
	if err := s.hosts.Progress(r.Context(), ie, id, p); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
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
	sent, err := s.hosts.InstallStepSent(ctx, h, args.BootDevice, string(args.Role))
	if err != nil || !sent {
		return nil, err // not sent: another poll handed it out first
	}
	b, err := jsonString(args)
	if err != nil {
		return nil, err
	}
	return &models.Step{StepType: models.StepTypeInstall, StepID: hosts.StepID(models.StepTypeInstall), Args: []string{b}}, nil
}
