package clusters

import (
	"errors"
	"fmt"
	"slices"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// CredentialStatuses are the cluster statuses whose credentials (the
// kubeconfig and kubeadmin password) can be read: as upstream, once the
// cluster is being finalized.
func CredentialStatuses() []string {
	return []string{engine.ClusterStatusFinalizing, engine.ClusterStatusInstalled, engine.ClusterStatusAddingHosts}
}

// CredentialFiles are the install artifacts that are credentials, read
// only in CredentialStatuses.
func CredentialFiles() []string {
	return []string{engine.ArtifactKubeconfig, engine.ArtifactKubeadminPassword}
}

// ClusterFiles are the other install artifacts a user may read, in any
// status once they are made.
func ClusterFiles() []string {
	return []string{engine.ArtifactBootstrap, engine.ArtifactMaster, engine.ArtifactWorker, engine.ArtifactMetadata,
		engine.ArtifactInstallConfig}
}

// Credentials are cluster id's console credentials (upstream's GET
// /clusters/{id}/credentials): the kubeadmin user and password and the
// console's URL. ErrConflict before the cluster is finalizing or when
// it has no install artifacts; ErrNotFound when its generator made no
// password.
func (s *Service) Credentials(id string) (models.Credentials, error) {
	pw, c, err := s.artifact(id, engine.ArtifactKubeadminPassword, true)
	if err != nil {
		return models.Credentials{}, err
	}
	return models.Credentials{Username: "kubeadmin", Password: string(pw),
		ConsoleURL: fmt.Sprintf("https://console-openshift-console.apps.%s.%s", c.Name, c.BaseDomain)}, nil
}

// Credential is the credential file name (CredentialFiles) of cluster id,
// read under the same rules as Credentials; another name is ErrInvalid.
func (s *Service) Credential(id, name string) ([]byte, error) {
	if !slices.Contains(CredentialFiles(), name) {
		return nil, hosts.Invalid("file_name %q is not kubeconfig or kubeadmin-password", hosts.Clip(name))
	}
	data, _, err := s.artifact(id, name, true)
	return data, err
}

// File is the install artifact name (ClusterFiles) of cluster id, in any
// status once the installation made it; another name is ErrInvalid.
func (s *Service) File(id, name string) ([]byte, error) {
	if !slices.Contains(ClusterFiles(), name) {
		return nil, hosts.Invalid("file_name %q is not one of bootstrap.ign, master.ign, worker.ign, metadata.json, install-config.yaml", hosts.Clip(name))
	}
	data, _, err := s.artifact(id, name, false)
	return data, err
}

// AdminCredentials are cluster id's kubeconfig and kubeadmin password,
// under the rules of Credentials, each empty when the cluster's
// generator made none (a generator of user configs makes neither): what
// the Kubernetes-compatible API writes into the ClusterDeployment's admin
// Secrets.
func (s *Service) AdminCredentials(id string) (kubeconfig, password []byte, err error) {
	var kerr, perr error
	s.store.Read(func(m *engine.Model) {
		if _, err = credentialsReadable(m, id, true); err != nil {
			return
		}
		kubeconfig, _, kerr = m.SecretValue(engine.InstallSecretName(id), engine.ArtifactKubeconfig)
		password, _, perr = m.SecretValue(engine.InstallSecretName(id), engine.ArtifactKubeadminPassword)
	})
	if err != nil {
		return nil, nil, err
	}
	if err := errors.Join(kerr, perr); err != nil {
		return nil, nil, fmt.Errorf("cluster %s: open the install artifacts: %w", id, err)
	}
	return kubeconfig, password, nil
}

// artifact returns key of cluster id's install artifacts; gated: only in
// CredentialStatuses. A key the generator did not make is ErrNotFound.
func (s *Service) artifact(id, key string, gated bool) ([]byte, engine.Cluster, error) {
	var (
		data []byte
		c    engine.Cluster
		err  error
	)
	s.store.Read(func(m *engine.Model) {
		if c, err = credentialsReadable(m, id, gated); err != nil {
			return
		}
		if data, _, err = m.SecretValue(engine.InstallSecretName(id), key); err != nil {
			return
		}
		if len(data) == 0 {
			err = fmt.Errorf("%w: cluster %s: its generator made no %s", hosts.ErrNotFound, id, key)
		}
	})
	return data, c, err
}

// credentialsReadable returns cluster id when its install artifacts can
// be read: it exists, has them, and (gated) is in CredentialStatuses.
func credentialsReadable(m *engine.Model, id string, gated bool) (engine.Cluster, error) {
	c, err := lookup(m, id)
	if err != nil {
		return c, err
	}
	if gated && !slices.Contains(CredentialStatuses(), c.Status) {
		return c, fmt.Errorf("%w: cluster %s is %s: its credentials are available once it is installed", hosts.ErrConflict, id, c.Status)
	}
	if _, ok := m.Secret(engine.InstallSecretName(id)); !ok {
		return c, fmt.Errorf("%w: cluster %s has no install artifacts (they are made when it starts installing)", hosts.ErrConflict, id)
	}
	return c, nil
}
