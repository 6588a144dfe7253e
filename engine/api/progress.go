package api

import (
	"errors"
	"net/http"

	"github.com/rackboot/rackboot/engine/auth"
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
