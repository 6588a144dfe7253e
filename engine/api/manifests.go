package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/install"
	"github.com/rackboot/rackboot/engine/models"
)

// manifestFolders are upstream's folders.
func manifestFolders() []string { return []string{"manifests", "openshift"} }

// editable refuses changes to a cluster that is installing or installed.
func editable(m *engine.Model, id string) error {
	c, ok := m.Cluster(id)
	switch {
	case !ok:
		return fmt.Errorf("%w: cluster %s", ErrNotFound, id)
	case c.Status != "" && c.Status != engine.ClusterStatusInsufficient && c.Status != engine.ClusterStatusReady &&
		c.Status != engine.ClusterStatusPendingForInput:
		return fmt.Errorf("%w: cluster %s is %s: its installation settings cannot change now", ErrConflict, id, c.Status)
	}
	return nil
}

func (s *server) readEditable(id string) error {
	var err error
	s.store.Read(func(m *engine.Model) { err = editable(m, id) })
	return err
}

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

// checkManifest checks a manifest's place and decodes its content, which
// must be YAML (or JSON) documents.
func checkManifest(p models.CreateManifestParams) (engine.Manifest, error) {
	if p.Folder == "" {
		p.Folder = "manifests"
	}
	if !slices.Contains(manifestFolders(), p.Folder) {
		return engine.Manifest{}, badRequest("folder %q is not manifests or openshift", hosts.Clip(p.Folder))
	}
	ext := path.Ext(p.FileName)
	if p.FileName == "" || path.Base(p.FileName) != p.FileName || strings.HasPrefix(p.FileName, ".") ||
		strings.ContainsAny(p.FileName, "\\\x00") || (ext != ".yaml" && ext != ".yml" && ext != ".json") {
		return engine.Manifest{}, badRequest("file_name %q is not a .yaml, .yml or .json file name", hosts.Clip(p.FileName))
	}
	content, err := base64.StdEncoding.DecodeString(p.Content)
	if err != nil || len(content) == 0 {
		return engine.Manifest{}, badRequest("content is not base64 of a manifest")
	}
	if len(content) > engine.MaxManifestSize {
		return engine.Manifest{}, badRequest("manifest %s is larger than %d bytes", p.FileName, engine.MaxManifestSize)
	}
	var doc any
	if ext == ".json" && !json.Valid(content) || ext != ".json" && yaml.Unmarshal(content, &doc) != nil {
		return engine.Manifest{}, badRequest("manifest %s is not valid %s", p.FileName, strings.TrimPrefix(ext, "."))
	}
	return engine.Manifest{Folder: p.Folder, FileName: p.FileName, Content: content}, nil
}

func (s *server) createManifest(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("cluster_id")
	var p models.CreateManifestParams
	if err := decode(w, r, 2*engine.MaxManifestSize, &p); err != nil {
		return err
	}
	mf, err := s.storeManifest(r.Context(), id, p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, models.Manifest{FileName: mf.FileName, Folder: mf.Folder})
	return nil
}

// storeManifest checks p and stores it as a custom manifest of cluster
// id, which must not be installing, with its event.
func (s *server) storeManifest(ctx context.Context, id string, p models.CreateManifestParams) (engine.Manifest, error) {
	mf, err := checkManifest(p)
	if err != nil {
		return mf, err
	}
	if err := s.readEditable(id); err != nil {
		return mf, err
	}
	if _, err := s.store.Apply(ctx, &engine.PutManifest{ClusterID: id, Manifest: mf}); err != nil {
		return mf, fmt.Errorf("store manifest: %w", err)
	}
	s.hosts.Event(ctx, engine.Event{Name: "cluster_manifest_created", Severity: "info", ClusterID: id,
		Message: fmt.Sprintf("Custom manifest %s/%s was stored", mf.Folder, mf.FileName)})
	return mf, nil
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
	if err := s.readEditable(id); err != nil {
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
	if err := s.readEditable(id); err != nil {
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
