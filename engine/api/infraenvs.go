package api

import (
	"net/http"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/models"
)

func (s *server) listInfraEnvs(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	cluster := r.URL.Query().Get("cluster_id")
	out := []models.InfraEnv{}
	s.store.Read(func(m *engine.Model) {
		for ie := range m.InfraEnvs() {
			if cluster == "" || ie.ClusterID == cluster {
				out = append(out, infraEnvOut(ie))
			}
		}
	})
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *server) writeInfraEnv(w http.ResponseWriter, code int, id string) error {
	ie, err := s.hosts.InfraEnv(id)
	if err != nil {
		return err
	}
	writeJSON(w, code, infraEnvOut(ie))
	return nil
}

func (s *server) getInfraEnv(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	return s.writeInfraEnv(w, http.StatusOK, r.PathValue("infra_env_id"))
}

func (s *server) createInfraEnv(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	var p models.InfraEnvCreateParams
	if err := decode(w, r, maxBody, &p); err != nil {
		return err
	}
	id, err := s.infraEnvs.Register(r.Context(), p)
	if err != nil {
		return err
	}
	return s.writeInfraEnv(w, http.StatusCreated, id)
}

func (s *server) updateInfraEnv(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("infra_env_id")
	var p models.InfraEnvUpdateParams
	if err := decode(w, r, maxBody, &p); err != nil {
		return err
	}
	if err := s.infraEnvs.Change(r.Context(), id, p); err != nil {
		return err
	}
	return s.writeInfraEnv(w, http.StatusCreated, id)
}

func (s *server) deleteInfraEnv(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	if err := s.infraEnvs.Deregister(r.Context(), r.PathValue("infra_env_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
