package installer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Role config file names, as openshift-install writes them.
const (
	BootstrapIgn = "bootstrap.ign"
	MasterIgn    = "master.ign"
	WorkerIgn    = "worker.ign"
	MetadataJSON = "metadata.json"
)

// maxRoleConfig bounds a role config file (a real bootstrap.ign is ~300 KiB).
const maxRoleConfig = 16 << 20

// userConfigs is the generator of NewUserConfigs.
type userConfigs struct{ dir string }

// NewUserConfigs returns a Generator that reads the role configs a user
// supplies in dir: master.ign and worker.ign (required), bootstrap.ign
// (optional: Master is used instead). Each is checked with Ignition's parser
// on every Generate. Metadata is made by rackboot (clusterName, clusterID,
// infraID); InstallConfig is InstallConfig(c); there is no kubeconfig or
// kubeadmin password.
func NewUserConfigs(dir string) Generator { return userConfigs{dir: dir} }

func (u userConfigs) Generate(ctx context.Context, c Cluster) (*Artifacts, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var a Artifacts
	var err error
	if a.Master, err = readRoleConfig(u.dir, MasterIgn, true); err != nil {
		return nil, err
	}
	if a.Worker, err = readRoleConfig(u.dir, WorkerIgn, true); err != nil {
		return nil, err
	}
	if a.Bootstrap, err = readRoleConfig(u.dir, BootstrapIgn, false); err != nil {
		return nil, err
	}
	if a.Bootstrap == nil {
		a.Bootstrap = a.Master
	}
	if a.Metadata, err = Metadata(c); err != nil {
		return nil, err
	}
	if a.InstallConfig, err = InstallConfig(c); err != nil {
		return nil, err
	}
	return &a, nil
}

// readRoleConfig reads and validates dir/name; a missing optional file is
// nil, nil.
func readRoleConfig(dir, name string, required bool) ([]byte, error) {
	path := filepath.Join(dir, name)
	raw, err := readLimited(path, maxRoleConfig)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRoleConfig, err)
	}
	if _, err := parse(raw); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrRoleConfig, path, err)
	}
	return raw, nil
}

// readLimited reads the regular file at path, refusing one over limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, over the %d-byte limit", path, st.Size(), limit)
	}
	return os.ReadFile(path)
}

// metadata is metadata.json as openshift-install writes it (the fields
// without a platform).
type metadata struct {
	ClusterName string `json:"clusterName"`
	ClusterID   string `json:"clusterID"`
	InfraID     string `json:"infraID"`
}

// Metadata returns the metadata.json rackboot writes when no
// openshift-install does: clusterName, clusterID (the cluster's ID) and
// infraID (name-<first 5 characters of the ID>).
func Metadata(c Cluster) ([]byte, error) {
	if c.Name == "" || c.ID == "" {
		return nil, fmt.Errorf("%w: cluster name and ID are required", ErrInvalidInput)
	}
	infra := c.ID
	if len(infra) > 5 {
		infra = infra[:5]
	}
	raw, err := json.Marshal(metadata{ClusterName: c.Name, ClusterID: c.ID, InfraID: c.Name + "-" + infra})
	if err != nil {
		return nil, fmt.Errorf("encoding metadata.json: %w", err)
	}
	return append(raw, '\n'), nil
}
