package client

import (
	"context"
	"net/http"
)

// SigningKeys lists the rack's token signing keys (kids only).
func (c *Client) SigningKeys(ctx context.Context) (*SigningKeys, error) {
	var out SigningKeys
	return &out, c.call(ctx, http.MethodGet, "/signing-keys", nil, nil, &out)
}

// RotateSigningKey makes a new key sign from now on; the others keep
// verifying until retired.
func (c *Client) RotateSigningKey(ctx context.Context) (*SigningKeys, error) {
	var out SigningKeys
	return &out, c.call(ctx, http.MethodPost, "/signing-keys/actions/rotate", nil, nil, &out)
}

// RetireSigningKey makes tokens signed with kid fail from now on.
func (c *Client) RetireSigningKey(ctx context.Context, kid string) error {
	return c.call(ctx, http.MethodDelete, "/signing-keys/"+pathID(kid), nil, nil, nil)
}
