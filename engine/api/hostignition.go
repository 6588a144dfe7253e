package api

import (
	"net/http"

	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/models"
)

// downloadHostIgnition answers the agent of an installing host with the
// host's install Ignition (downloads.Service.HostIgnition).
func (s *server) downloadHostIgnition(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	cfg, err := s.downloads.HostIgnition(r.PathValue("infra_env_id"), r.PathValue("host_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, models.HostIgnitionParams{Config: string(cfg)})
	return nil
}

// updateHostIgnition is upstream's V2UpdateHostIgnition: PATCH
// .../hosts/{id}/ignition with {"config": ...} sets the host's Ignition
// override ("" removes it), checked like ignition_config_overrides.
func (s *server) updateHostIgnition(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	ie, id := r.PathValue("infra_env_id"), r.PathValue("host_id")
	var p models.HostIgnitionParams
	if err := decode(w, r, maxBody, &p); err != nil {
		return err
	}
	if err := s.hosts.SetIgnitionOverride(r.Context(), ie, id, p.Config); err != nil {
		return err
	}
	w.WriteHeader(http.StatusCreated)
	return nil
}
