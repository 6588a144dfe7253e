package clusters

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// ManifestFolders are upstream's folders.
func ManifestFolders() []string { return []string{"manifests", "openshift"} }

// Editable refuses changes to a cluster that is installing or installed.
func Editable(m *engine.Model, id string) error {
	c, ok := m.Cluster(id)
	switch {
	case !ok:
		return fmt.Errorf("%w: cluster %s", hosts.ErrNotFound, id)
	case c.Status != "" && c.Status != engine.ClusterStatusInsufficient && c.Status != engine.ClusterStatusReady &&
		c.Status != engine.ClusterStatusPendingForInput:
		return fmt.Errorf("%w: cluster %s is %s: its installation settings cannot change now", hosts.ErrConflict, id, c.Status)
	}
	return nil
}

func (s *Service) CheckEditable(id string) error {
	var err error
	s.store.Read(func(m *engine.Model) { err = Editable(m, id) })
	return err
}

// CheckManifest checks a manifest's place and decodes its content, which
// must be YAML (or JSON) documents.
func CheckManifest(p models.CreateManifestParams) (engine.Manifest, error) {
	if p.Folder == "" {
		p.Folder = "manifests"
	}
	if !slices.Contains(ManifestFolders(), p.Folder) {
		return engine.Manifest{}, hosts.Invalid("folder %q is not manifests or openshift", hosts.Clip(p.Folder))
	}
	ext := path.Ext(p.FileName)
	if p.FileName == "" || path.Base(p.FileName) != p.FileName || strings.HasPrefix(p.FileName, ".") ||
		strings.ContainsAny(p.FileName, "\\\x00") || (ext != ".yaml" && ext != ".yml" && ext != ".json") {
		return engine.Manifest{}, hosts.Invalid("file_name %q is not a .yaml, .yml or .json file name", hosts.Clip(p.FileName))
	}
	content, err := base64.StdEncoding.DecodeString(p.Content)
	if err != nil || len(content) == 0 {
		return engine.Manifest{}, hosts.Invalid("content is not base64 of a manifest")
	}
	if len(content) > engine.MaxManifestSize {
		return engine.Manifest{}, hosts.Invalid("manifest %s is larger than %d bytes", p.FileName, engine.MaxManifestSize)
	}
	var doc any
	if ext == ".json" && !json.Valid(content) || ext != ".json" && yaml.Unmarshal(content, &doc) != nil {
		return engine.Manifest{}, hosts.Invalid("manifest %s is not valid %s", p.FileName, strings.TrimPrefix(ext, "."))
	}
	return engine.Manifest{Folder: p.Folder, FileName: p.FileName, Content: content}, nil
}

// PutManifest checks p and stores it as a custom manifest of cluster
// id, which must not be installing, with its event.
func (s *Service) PutManifest(ctx context.Context, id string, p models.CreateManifestParams) (engine.Manifest, error) {
	mf, err := CheckManifest(p)
	if err != nil {
		return mf, err
	}
	if err := s.CheckEditable(id); err != nil {
		return mf, err
	}
	if _, err := s.store.Apply(ctx, &engine.PutManifest{ClusterID: id, Manifest: mf}); err != nil {
		return mf, fmt.Errorf("store manifest: %w", err)
	}
	s.hosts.Event(ctx, engine.Event{Name: "cluster_manifest_created", Severity: "info", ClusterID: id,
		Message: fmt.Sprintf("Custom manifest %s/%s was stored", mf.Folder, mf.FileName)})
	return mf, nil
}
