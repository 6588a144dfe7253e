package api

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// credentialStatuses are the cluster statuses whose credentials can be
// read (as upstream: once the cluster is being finalized).
func credentialStatuses() []string {
	return []string{engine.ClusterStatusFinalizing, engine.ClusterStatusInstalled, engine.ClusterStatusAddingHosts}
}

// artifact returns key of cluster id's install artifacts; statuses, when
// set, are the cluster statuses that may read it.
func (s *server) artifact(id, key string, statuses []string) ([]byte, engine.Cluster, error) {
	var (
		data []byte
		c    engine.Cluster
		err  error
	)
	s.store.Read(func(m *engine.Model) {
		var ok bool
		if c, ok = m.Cluster(id); !ok {
			err = fmt.Errorf("%w: cluster %s", ErrNotFound, id)
			return
		}
		if statuses != nil && !slices.Contains(statuses, c.Status) {
			err = fmt.Errorf("%w: cluster %s is %s: its credentials are available once it is installed", ErrConflict, id, c.Status)
			return
		}
		if _, ok := m.Secret(engine.InstallSecretName(id)); !ok {
			err = fmt.Errorf("%w: cluster %s has no install artifacts (they are made when it starts installing)", ErrConflict, id)
			return
		}
		if data, _, err = m.SecretValue(engine.InstallSecretName(id), key); err != nil {
			return
		}
		if len(data) == 0 {
			err = fmt.Errorf("%w: cluster %s: its generator made no %s", ErrNotFound, id, key)
		}
	})
	return data, c, err
}

func (s *server) credentials(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	id := r.PathValue("cluster_id")
	pw, c, err := s.artifact(id, engine.ArtifactKubeadminPassword, credentialStatuses())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, models.Credentials{Username: "kubeadmin", Password: string(pw),
		ConsoleURL: fmt.Sprintf("https://console-openshift-console.apps.%s.%s", c.Name, c.BaseDomain)})
	return nil
}

func (s *server) downloadCredentials(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	name := r.URL.Query().Get("file_name")
	if name != engine.ArtifactKubeconfig && name != engine.ArtifactKubeadminPassword {
		return badRequest("file_name %q is not kubeconfig or kubeadmin-password", hosts.Clip(name))
	}
	data, _, err := s.artifact(r.PathValue("cluster_id"), name, credentialStatuses())
	if err != nil {
		return err
	}
	writeFile(w, name, data)
	return nil
}

// clusterFiles are the artifacts downloads/files serves.
func clusterFiles() []string {
	return []string{engine.ArtifactBootstrap, engine.ArtifactMaster, engine.ArtifactWorker, engine.ArtifactMetadata,
		engine.ArtifactInstallConfig}
}

func (s *server) downloadClusterFile(w http.ResponseWriter, r *http.Request, _ auth.Principal) error {
	name := r.URL.Query().Get("file_name")
	if !slices.Contains(clusterFiles(), name) {
		return badRequest("file_name %q is not one of bootstrap.ign, master.ign, worker.ign, metadata.json, install-config.yaml", hosts.Clip(name))
	}
	data, _, err := s.artifact(r.PathValue("cluster_id"), name, nil)
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
