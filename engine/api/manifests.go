package api

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/install"
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
	if name == "" {
		return badRequest("file_name is required")
	}
	if err := s.clusters.CheckEditable(id); err != nil {
		return err
	}
	ctx := r.Context()
	if _, err := s.store.Apply(ctx, &engine.DeleteManifest{ClusterID: id, Folder: folder, FileName: name}); err != nil {
		return fmt.Errorf("delete manifest: %w", err)
	}
	s.hosts.Event(ctx, engine.Event{Name: "cluster_manifest_deleted", Severity: "info", ClusterID: id,
		Message: fmt.Sprintf("Custom manifest %s/%s was deleted", hosts.Clip(folder), hosts.Clip(name))})
	w.WriteHeader(http.StatusOK)
	return nil
}

// redactedPullSecret stands for the pull secret in the install-config the
// API shows (the generated file, downloads/files, has the real one).
const redactedPullSecret = `{"auths":{"REDACTED":{"auth":"UkVEQUNURUQ="}}}`

// installConfig renders cluster id's install-config.yaml with overrides
// (nil: the stored ones), its pull secret redacted.
func (s *server) installConfig(id string, overrides *string) ([]byte, error) {
	var (
		out []byte
		err error
	)
	s.store.Read(func(m *engine.Model) {
		c, ok := m.Cluster(id)
		if !ok {
			err = fmt.Errorf("%w: cluster %s", ErrNotFound, id)
			return
		}
		if overrides != nil {
			c.InstallConfigOverrides = *overrides
		}
		ic, cerr := install.Cluster(m, c)
		if cerr != nil {
			err = fmt.Errorf("%w: %v", ErrConflict, cerr)
			return
		}
		ic.PullSecret = redactedPullSecret
		out, err = installer.InstallConfig(ic)
	})
	if err != nil {
		return nil, fmt.Errorf("install-config of cluster %s: %w", id, err)
	}
	return out, nil
}

func (s *server) getInstallConfig(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	out, err := s.installConfig(r.PathValue("cluster_id"), nil)
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
	if err := s.clusters.CheckEditable(id); err != nil {
		return err
	}
	if _, err := s.installConfig(id, &doc); err != nil {
		if installerInput(err) {
			return badRequest("%v", err)
		}
		return err
	}
	ctx := r.Context()
	if _, err := s.store.Apply(ctx, &engine.UpdateCluster{ID: id, Patch: engine.ClusterPatch{InstallConfigOverrides: &doc}}); err != nil {
		return fmt.Errorf("store install-config overrides: %w", err)
	}
	s.hosts.Event(ctx, engine.Event{Name: "install_config_applied", Severity: "info", ClusterID: id,
		Message: "Custom install config was applied to the cluster"})
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
