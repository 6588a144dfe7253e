package api

import (
	"fmt"
	"net/http"

	"github.com/rackboot/rackboot/engine/auth"
)

func (s *server) credentials(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	c, err := s.clusters.Credentials(r.PathValue("cluster_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

func (s *server) downloadCredentials(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	name := r.URL.Query().Get("file_name")
	data, err := s.clusters.Credential(r.PathValue("cluster_id"), name)
	if err != nil {
		return err
	}
	writeFile(w, name, data)
	return nil
}

func (s *server) downloadClusterFile(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	name := r.URL.Query().Get("file_name")
	data, err := s.clusters.File(r.PathValue("cluster_id"), name)
	if err != nil {
		return err
	}
	writeFile(w, name, data)
	return nil
}

// writeFile answers a download.
func writeFile(w http.ResponseWriter, name string, data []byte) {
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}
