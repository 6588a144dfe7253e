package api

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/models"
)

func (s *server) listManifests(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("cluster_id")
	out := []models.Manifest{}
	var ok bool
	s.store.Read(func(m *engine.Model) {
		var c engine.Cluster
		if c, ok = m.Cluster(id); ok {
			for _, mf := range c.Manifests {
				out = append(out, models.Manifest{FileName: mf.FileName, Folder: mf.Folder})
			}
		}
	})
	if !ok {
		return fmt.Errorf("%w: cluster %s", ErrNotFound, id)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *server) createManifest(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("cluster_id")
	var p models.CreateManifestParams
	if err := decode(w, r, 2*engine.MaxManifestSize, &p); err != nil {
		return err
	}
	mf, err := s.clusters.PutManifest(r.Context(), id, p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, models.Manifest{FileName: mf.FileName, Folder: mf.Folder})
	return nil
}

func (s *server) deleteManifest(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("cluster_id")
	q := r.URL.Query()
	folder, name := q.Get("folder"), q.Get("file_name")
	if folder == "" {
		folder = "manifests"
	}
	if err := s.clusters.DeleteManifest(r.Context(), id, folder, name); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func (s *server) getInstallConfig(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	out, err := s.clusters.InstallConfig(r.PathValue("cluster_id"), nil)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, string(out))
	return nil
}

func (s *server) updateInstallConfig(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("cluster_id")
	var doc string
	if err := decode(w, r, maxBody, &doc); err != nil {
		return err
	}
	if err := checkOverridesDoc(doc); err != nil {
		return err
	}
	if err := s.clusters.SetInstallConfigOverrides(r.Context(), id, doc); err != nil {
		return err
	}
	w.WriteHeader(http.StatusCreated)
	return nil
}

// checkOverridesDoc accepts "" (no overrides) or a JSON object.
func checkOverridesDoc(doc string) error {
	if doc == "" {
		return nil
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(doc), &obj); err != nil {
		return badRequest("install-config overrides are not a JSON object: %s", jsonReason(err))
	}
	if obj == nil {
		return badRequest("install-config overrides are not a JSON object")
	}
	return nil
}
