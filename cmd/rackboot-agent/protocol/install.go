package protocol

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

// MaxIgnitionResponseBytes bounds the answer holding the host's install
// Ignition (a bootstrap config with its manifests is larger than other
// answers).
const MaxIgnitionResponseBytes = 32 << 20

// HostIgnition downloads the host's install Ignition from ignitionURL (the
// install step's ignition_url: GET .../hosts/{host_id}/downloads/ignition,
// expecting 200 and HostIgnitionParams). The URL may be a path on the
// service or an absolute URL, which must then name the service's own scheme
// and host: the agent's token is never sent anywhere else. An empty config
// is an error.
func (c *Client) HostIgnition(ctx context.Context, ignitionURL string) (*models.HostIgnitionParams, error) {
	u, err := c.serviceURL(ignitionURL)
	if err != nil {
		return nil, err
	}
	var out models.HostIgnitionParams
	if err := c.doURL(ctx, "host ignition", http.MethodGet, u, MaxIgnitionResponseBytes, nil, http.StatusOK, &out); err != nil {
		return nil, err
	}
	if out.Config == "" {
		return nil, fmt.Errorf("%w: host ignition: the answer holds no config", ErrDecode)
	}
	return &out, nil
}

// PutProgress reports an installation stage of hostID: PUT
// .../hosts/{host_id}/progress with HostProgress, expecting 200.
func (c *Client) PutProgress(ctx context.Context, hostID string, p models.HostProgress) error {
	if !validID(hostID) {
		return fmt.Errorf("%w: host id %q is not 8-4-4-4-12 hex", ErrConfig, hostID)
	}
	return c.do(ctx, "progress", http.MethodPut, c.hostsPath()+"/"+hostID+"/progress", nil, p, http.StatusOK, nil)
}

// serviceURL resolves raw against the service's base URL and refuses one
// on another origin.
func (c *Client) serviceURL(raw string) (*url.URL, error) {
	ref, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || raw == "" || ref.User != nil || ref.Fragment != "" {
		return nil, fmt.Errorf("%w: %q is not a URL on the service", ErrConfig, redact(raw, c.token))
	}
	if !ref.IsAbs() && !strings.HasPrefix(ref.Path, "/") {
		return nil, fmt.Errorf("%w: %q is neither an absolute URL nor an absolute path", ErrConfig, redact(raw, c.token))
	}
	u := c.base.ResolveReference(ref)
	if !strings.EqualFold(u.Scheme, c.base.Scheme) || !strings.EqualFold(u.Host, c.base.Host) {
		return nil, fmt.Errorf("%w: %s://%s is not the service (%s): the agent token is not sent there",
			ErrConfig, u.Scheme, u.Host, c.base.Host)
	}
	return u, nil
}
