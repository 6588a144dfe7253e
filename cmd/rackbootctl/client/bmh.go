package client

import "context"

func bmhPath(name string) string { return "/baremetal-hosts/" + pathID(name) }

// ListBareMetalHosts lists every BareMetalHost.
func (c *Client) ListBareMetalHosts(ctx context.Context) ([]*BareMetalHost, error) {
	var out []*BareMetalHost
	return out, c.call(ctx, "GET", "/baremetal-hosts", nil, nil, &out)
}

// GetBareMetalHost returns BareMetalHost name.
func (c *Client) GetBareMetalHost(ctx context.Context, name string) (*BareMetalHost, error) {
	out := new(BareMetalHost)
	return out, c.call(ctx, "GET", bmhPath(name), nil, nil, out)
}

// CreateBareMetalHost creates a BareMetalHost (and its credentials secret).
func (c *Client) CreateBareMetalHost(ctx context.Context, p BareMetalHostCreate) (*BareMetalHost, error) {
	out := new(BareMetalHost)
	return out, c.call(ctx, "POST", "/baremetal-hosts", nil, p, out)
}

// UpdateBareMetalHost applies a merge patch to BareMetalHost name.
func (c *Client) UpdateBareMetalHost(ctx context.Context, name string, p BareMetalHostPatch) (*BareMetalHost, error) {
	out := new(BareMetalHost)
	return out, c.call(ctx, "PATCH", bmhPath(name), nil, p, out)
}

// DeleteBareMetalHost deletes BareMetalHost name.
func (c *Client) DeleteBareMetalHost(ctx context.Context, name string) error {
	return c.call(ctx, "DELETE", bmhPath(name), nil, nil, nil)
}
