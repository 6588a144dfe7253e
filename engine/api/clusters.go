package api

import (
	"fmt"
	"net/http"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/models"
)

func (s *server) listClusters(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	out := []models.Cluster{}
	s.store.Read(func(m *engine.Model) {
		for c := range m.Clusters() {
			out = append(out, s.clusterOut(m, c))
		}
	})
	writeJSON(w, http.StatusOK, out)
	return nil
}

// cluster writes cluster id with status code.
func (s *server) writeCluster(w http.ResponseWriter, code int, id string) error {
	var (
		out models.Cluster
		ok  bool
	)
	s.store.Read(func(m *engine.Model) {
		var c engine.Cluster
		if c, ok = m.Cluster(id); ok {
			out = s.clusterOut(m, c)
		}
	})
	if !ok {
		return fmt.Errorf("%w: cluster %s", ErrNotFound, id)
	}
	writeJSON(w, code, out)
	return nil
}

func (s *server) getCluster(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	return s.writeCluster(w, http.StatusOK, r.PathValue("cluster_id"))
}

func (s *server) createCluster(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	var p models.ClusterCreateParams
	if err := decode(w, r, maxBody, &p); err != nil {
		return err
	}
	id, err := s.clusters.Register(r.Context(), p, "")
	if err != nil {
		return err
	}
	return s.writeCluster(w, http.StatusCreated, id)
}

func (s *server) updateCluster(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("cluster_id")
	var p models.V2ClusterUpdateParams
	if err := decode(w, r, maxBody, &p); err != nil {
		return err
	}
	if err := s.clusters.Change(r.Context(), id, p); err != nil {
		return err
	}
	return s.writeCluster(w, http.StatusCreated, id)
}

func (s *server) deleteCluster(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	if err := s.clusters.Deregister(r.Context(), r.PathValue("cluster_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
