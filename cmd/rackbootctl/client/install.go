package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// Cluster files (file_name of GET /clusters/{id}/downloads/files).
const (
	FileInstallConfig = "install-config.yaml"
	FileBootstrapIgn  = "bootstrap.ign"
	FileMasterIgn     = "master.ign"
	FileWorkerIgn     = "worker.ign"
	FileMetadata      = "metadata.json"
)

// Cluster credentials (file_name of GET /clusters/{id}/downloads/credentials).
const (
	CredKubeconfig        = "kubeconfig"
	CredKubeadminPassword = "kubeadmin-password"
)

func clusterAction(id, action string) string {
	return "/clusters/" + pathID(id) + "/actions/" + action
}

// InstallCluster starts the installation of a ready cluster
// (POST .../actions/install). A cluster that is not ready gives an
// *APIError matching ErrConflict.
func (c *Client) InstallCluster(ctx context.Context, id string) (*Cluster, error) {
	var out Cluster
	return &out, c.call(ctx, http.MethodPost, clusterAction(id, "install"), nil, nil, &out)
}

// CancelInstallation stops a running installation (POST .../actions/cancel).
func (c *Client) CancelInstallation(ctx context.Context, id string) (*Cluster, error) {
	var out Cluster
	return &out, c.call(ctx, http.MethodPost, clusterAction(id, "cancel"), nil, nil, &out)
}

// ResetCluster resets a cancelled or failed installation
// (POST .../actions/reset): the hosts go back to discovery.
func (c *Client) ResetCluster(ctx context.Context, id string) (*Cluster, error) {
	var out Cluster
	return &out, c.call(ctx, http.MethodPost, clusterAction(id, "reset"), nil, nil, &out)
}

// AllowAddWorkers turns an installed cluster into one that accepts day-2
// workers (POST .../actions/allow-add-workers).
func (c *Client) AllowAddWorkers(ctx context.Context, id string) (*Cluster, error) {
	var out Cluster
	return &out, c.call(ctx, http.MethodPost, clusterAction(id, "allow-add-workers"), nil, nil, &out)
}

// InstallHost installs one host of a cluster that accepts added hosts
// (POST /infra-envs/{ie}/hosts/{id}/actions/install, day 2).
func (c *Client) InstallHost(ctx context.Context, infraEnvID, hostID string) (*Host, error) {
	var out Host
	return &out, c.call(ctx, http.MethodPost, hostPath(infraEnvID, hostID)+"/actions/install", nil, nil, &out)
}

// Credentials returns the cluster's console URL, user and password.
func (c *Client) Credentials(ctx context.Context, id string) (*Credentials, error) {
	var out Credentials
	return &out, c.call(ctx, http.MethodGet, "/clusters/"+pathID(id)+"/credentials", nil, nil, &out)
}

// DownloadClusterFile streams the cluster file name (FileInstallConfig,
// FileMasterIgn, ...) into w and returns the bytes written.
func (c *Client) DownloadClusterFile(ctx context.Context, id, name string, w io.Writer) (int64, error) {
	return c.download(ctx, "/clusters/"+pathID(id)+"/downloads/files", name, w)
}

// DownloadCredentials streams a credentials file (CredKubeconfig,
// CredKubeadminPassword) of an installed cluster into w.
func (c *Client) DownloadCredentials(ctx context.Context, id, name string, w io.Writer) (int64, error) {
	return c.download(ctx, "/clusters/"+pathID(id)+"/downloads/credentials", name, w)
}

// download GETs path?file_name=name and copies the answer into w.
func (c *Client) download(ctx context.Context, path, name string, w io.Writer) (int64, error) {
	resp, err := c.send(ctx, http.MethodGet, path, url.Values{"file_name": {name}}, nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("downloading %s: %w", name, err)
	}
	return n, nil
}

// InstallConfig returns the cluster's install-config.yaml as rackboot
// generates it (overrides applied).
func (c *Client) InstallConfig(ctx context.Context, id string) (string, error) {
	var out string
	return out, c.call(ctx, http.MethodGet, "/clusters/"+pathID(id)+"/install-config", nil, nil, &out)
}

// UpdateInstallConfig sets the cluster's install-config overrides (a JSON
// object, merged over the generated install-config; "" removes them).
func (c *Client) UpdateInstallConfig(ctx context.Context, id, overrides string) error {
	return c.call(ctx, http.MethodPatch, "/clusters/"+pathID(id)+"/install-config", nil, overrides, nil)
}

// ListManifests lists the cluster's custom manifests.
func (c *Client) ListManifests(ctx context.Context, id string) ([]*Manifest, error) {
	var out []*Manifest
	return out, c.call(ctx, http.MethodGet, "/clusters/"+pathID(id)+"/manifests", nil, nil, &out)
}

// CreateManifest stores a custom manifest.
func (c *Client) CreateManifest(ctx context.Context, id string, p CreateManifestParams) (*Manifest, error) {
	var out Manifest
	return &out, c.call(ctx, http.MethodPost, "/clusters/"+pathID(id)+"/manifests", nil, p, &out)
}
