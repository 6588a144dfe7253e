package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/rackboot/rackboot/engine/models"
)

// ListClusters returns every cluster.
func (c *Client) ListClusters(ctx context.Context) ([]*Cluster, error) {
	var out []*Cluster
	return out, c.call(ctx, http.MethodGet, "/clusters", nil, nil, &out)
}

// GetCluster returns one cluster.
func (c *Client) GetCluster(ctx context.Context, id string) (*Cluster, error) {
	var out Cluster
	return &out, c.call(ctx, http.MethodGet, "/clusters/"+pathID(id), nil, nil, &out)
}

// CreateCluster creates a cluster.
func (c *Client) CreateCluster(ctx context.Context, p ClusterCreateParams) (*Cluster, error) {
	var out Cluster
	return &out, c.call(ctx, http.MethodPost, "/clusters", nil, p, &out)
}

// DeleteCluster deletes a cluster.
func (c *Client) DeleteCluster(ctx context.Context, id string) error {
	return c.call(ctx, http.MethodDelete, "/clusters/"+pathID(id), nil, nil, nil)
}

// ListInfraEnvs returns every infra-env.
func (c *Client) ListInfraEnvs(ctx context.Context) ([]*InfraEnv, error) {
	var out []*InfraEnv
	return out, c.call(ctx, http.MethodGet, "/infra-envs", nil, nil, &out)
}

// GetInfraEnv returns one infra-env.
func (c *Client) GetInfraEnv(ctx context.Context, id string) (*InfraEnv, error) {
	var out InfraEnv
	return &out, c.call(ctx, http.MethodGet, "/infra-envs/"+pathID(id), nil, nil, &out)
}

// CreateInfraEnv creates an infra-env.
func (c *Client) CreateInfraEnv(ctx context.Context, p InfraEnvCreateParams) (*InfraEnv, error) {
	var out InfraEnv
	return &out, c.call(ctx, http.MethodPost, "/infra-envs", nil, p, &out)
}

// UpdateInfraEnv patches an infra-env.
func (c *Client) UpdateInfraEnv(ctx context.Context, id string, p InfraEnvUpdateParams) (*InfraEnv, error) {
	var out InfraEnv
	return &out, c.call(ctx, http.MethodPatch, "/infra-envs/"+pathID(id), nil, p, &out)
}

// DeleteInfraEnv deletes an infra-env.
func (c *Client) DeleteInfraEnv(ctx context.Context, id string) error {
	return c.call(ctx, http.MethodDelete, "/infra-envs/"+pathID(id), nil, nil, nil)
}

func hostPath(infraEnvID, hostID string) string {
	return "/infra-envs/" + pathID(infraEnvID) + "/hosts/" + pathID(hostID)
}

// ListHosts returns the hosts of one infra-env.
func (c *Client) ListHosts(ctx context.Context, infraEnvID string) ([]*Host, error) {
	var out []*Host
	return out, c.call(ctx, http.MethodGet, "/infra-envs/"+pathID(infraEnvID)+"/hosts", nil, nil, &out)
}

// ListAllHosts returns the hosts of every infra-env, in infra-env order.
func (c *Client) ListAllHosts(ctx context.Context) ([]*Host, error) {
	envs, err := c.ListInfraEnvs(ctx)
	if err != nil {
		return nil, err
	}
	var all []*Host
	for _, e := range envs {
		hs, err := c.ListHosts(ctx, e.ID)
		if errors.Is(err, ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		all = append(all, hs...)
	}
	return all, nil
}

// GetHost returns one host of an infra-env.
func (c *Client) GetHost(ctx context.Context, infraEnvID, hostID string) (*Host, error) {
	var out Host
	return &out, c.call(ctx, http.MethodGet, hostPath(infraEnvID, hostID), nil, nil, &out)
}

// FindHost returns the host with id hostID in whichever infra-env holds
// it; none is an error matching ErrNotFound.
func (c *Client) FindHost(ctx context.Context, hostID string) (*Host, error) {
	envs, err := c.ListInfraEnvs(ctx)
	if err != nil {
		return nil, err
	}
	for _, e := range envs {
		h, err := c.GetHost(ctx, e.ID, hostID)
		if err == nil {
			return h, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	return nil, &APIError{Method: http.MethodGet, Path: BasePath + "/infra-envs/*/hosts/" + hostID,
		Status: http.StatusNotFound, Reason: fmt.Sprintf("host %s not found in any infra-env", hostID)}
}

// UpdateHost patches a host.
func (c *Client) UpdateHost(ctx context.Context, infraEnvID, hostID string, p HostUpdateParams) (*Host, error) {
	var out Host
	return &out, c.call(ctx, http.MethodPatch, hostPath(infraEnvID, hostID), nil, p, &out)
}

// DeleteHost deletes a host.
func (c *Client) DeleteHost(ctx context.Context, infraEnvID, hostID string) error {
	return c.call(ctx, http.MethodDelete, hostPath(infraEnvID, hostID), nil, nil, nil)
}

// BindHost binds a host of a late-binding infra-env to a cluster.
func (c *Client) BindHost(ctx context.Context, infraEnvID, hostID, clusterID string) (*Host, error) {
	var out Host
	return &out, c.call(ctx, http.MethodPost, hostPath(infraEnvID, hostID)+"/actions/bind", nil,
		models.BindHostParams{ClusterID: &clusterID}, &out)
}

// UnbindHost releases a host from its cluster.
func (c *Client) UnbindHost(ctx context.Context, infraEnvID, hostID string) (*Host, error) {
	var out Host
	return &out, c.call(ctx, http.MethodPost, hostPath(infraEnvID, hostID)+"/actions/unbind", nil, nil, &out)
}

// ListEvents returns the events f selects, oldest first.
func (c *Client) ListEvents(ctx context.Context, f EventFilter) ([]*Event, error) {
	q := url.Values{}
	for k, v := range map[string]string{"cluster_id": f.ClusterID, "infra_env_id": f.InfraEnvID, "host_id": f.HostID} {
		if v != "" {
			q.Set(k, v)
		}
	}
	var out []*Event
	return out, c.call(ctx, http.MethodGet, "/events", q, nil, &out)
}

// ImageURL returns the discovery image URL of an infra-env.
func (c *Client) ImageURL(ctx context.Context, infraEnvID string) (*PresignedURL, error) {
	var out PresignedURL
	return &out, c.call(ctx, http.MethodGet, "/infra-envs/"+pathID(infraEnvID)+"/downloads/image-url", nil, nil, &out)
}

// Infra-env files (file_name of .../downloads/files).
const (
	FileDiscoveryIgnition = "discovery.ign"
	FileIPXEScript        = "ipxe-script"
)

// DownloadInfraEnvFile streams file name of an infra-env into w and
// returns the bytes written.
func (c *Client) DownloadInfraEnvFile(ctx context.Context, infraEnvID, name string, w io.Writer) (int64, error) {
	return c.download(ctx, "/infra-envs/"+pathID(infraEnvID)+"/downloads/files", name, w)
}

// ServerVersion returns the API version the server's OpenAPI document
// (GET /v2/openapi.json, public) declares.
func (c *Client) ServerVersion(ctx context.Context) (string, error) {
	var doc struct {
		Info struct {
			Title   string `json:"title"`
			Version string `json:"version"`
		} `json:"info"`
	}
	if err := c.call(ctx, http.MethodGet, "/openapi.json", nil, nil, &doc); err != nil {
		return "", err
	}
	if doc.Info.Version == "" {
		return "", fmt.Errorf("%w: the OpenAPI document has no info.version", ErrProtocol)
	}
	return doc.Info.Version, nil
}
