package clusters

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/install"
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

// DeleteManifest deletes custom manifest folder/name of cluster id, which
// must not be installing, with its event.
func (s *Service) DeleteManifest(ctx context.Context, id, folder, name string) error {
	if name == "" {
		return hosts.Invalid("file_name is required")
	}
	if err := s.CheckEditable(id); err != nil {
		return err
	}
	if _, err := s.store.Apply(ctx, &engine.DeleteManifest{ClusterID: id, Folder: folder, FileName: name}); err != nil {
		return fmt.Errorf("delete manifest: %w", err)
	}
	s.hosts.Event(ctx, engine.Event{Name: "cluster_manifest_deleted", Severity: "info", ClusterID: id,
		Message: fmt.Sprintf("Custom manifest %s/%s was deleted", hosts.Clip(folder), hosts.Clip(name))})
	return nil
}

// redactedPullSecret stands for the pull secret in the install-config the
// API shows (the generated file, downloads/files, has the real one).
const redactedPullSecret = `{"auths":{"REDACTED":{"auth":"UkVEQUNURUQ="}}}`

// InstallConfig renders cluster id's install-config.yaml with overrides
// (nil: the stored ones), its pull secret redacted.
func (s *Service) InstallConfig(id string, overrides *string) ([]byte, error) {
	var (
		out []byte
		err error
	)
	s.store.Read(func(m *engine.Model) {
		var c engine.Cluster
		if c, err = lookup(m, id); err != nil {
			return
		}
		if overrides != nil {
			c.InstallConfigOverrides = *overrides
		}
		ic, cerr := install.Cluster(m, c)
		if cerr != nil {
			err = fmt.Errorf("%w: %v", hosts.ErrConflict, cerr)
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

// InstallerInput reports a bad cluster field or override the installer
// refused (a 400 rather than a 500).
func InstallerInput(err error) bool {
	return errors.Is(err, installer.ErrInvalidInput) || errors.Is(err, installer.ErrInstallConfigOverride)
}

// SetInstallConfigOverrides stores doc (a JSON object, or "" for none) as
// the install-config overrides of cluster id, which must not be
// installing, once the install-config renders with them; with its event.
func (s *Service) SetInstallConfigOverrides(ctx context.Context, id, doc string) error {
	if err := s.CheckEditable(id); err != nil {
		return err
	}
	if _, err := s.InstallConfig(id, &doc); err != nil {
		if InstallerInput(err) {
			return hosts.Invalid("%v", err)
		}
		return err
	}
	if _, err := s.store.Apply(ctx, &engine.UpdateCluster{ID: id, Patch: engine.ClusterPatch{InstallConfigOverrides: &doc}}); err != nil {
		return fmt.Errorf("store install-config overrides: %w", err)
	}
	s.hosts.Event(ctx, engine.Event{Name: "install_config_applied", Severity: "info", ClusterID: id,
		Message: "Custom install config was applied to the cluster"})
	return nil
}
