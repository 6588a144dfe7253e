package ha

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rackboot/rackboot/engine/models"
	"io"
	"net"
	"net/http"
	"time"
)

// Test credentials of the infra-envs the workload creates (no real
// secret).
const (
	pullSecret = `{"auths":{"quay.io":{"auth":"dGVzdGJlZDpzZWtyaXQ=","email":"ops@example.com"}}}`
	sshKey     = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOSXuCdeXfbIz7N1frVxVh7RLkDKcDLxqCJzgFHQE3s2 ops@testbed"
)

// ErrNotSent wraps the error of a request that never reached a server
// (its connection could not be made): it certainly did nothing.
var ErrNotSent = errors.New("ha testbed: request not sent")

// API is an admin client of the rack's REST API from the client
// namespace.
type API struct {
	http  *http.Client
	token string
}

// API returns an admin client whose requests time out after timeout.
func (r *Rack) API(timeout time.Duration) *API {
	return &API{http: r.HTTP(timeout), token: r.token}
}

// Do sends a request to base+models.BasePath+path with the admin token, and
// decodes a 2xx answer into out (when not nil). It returns the status
// code (0 when no answer came) and the body.
func (a *API) Do(ctx context.Context, base, method, path string, in, out any) (int, []byte, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+models.BasePath+path, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.http.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return 0, nil, fmt.Errorf("%w: %w", ErrNotSent, err)
		}
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return resp.StatusCode, b, err
	}
	if resp.StatusCode/100 == 2 && out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.StatusCode, b, fmt.Errorf("%w: %s %s: %w", ErrRack, method, path, err)
		}
	}
	return resp.StatusCode, b, nil
}

// InfraEnv is the part of an infra-env the tests read.
type InfraEnv struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	NTP  string `json:"additional_ntp_sources"`
}

// CreateInfraEnv creates an infra-env named name with ntp as its
// additional NTP sources through base. The infra-env is acknowledged when
// the error is nil.
func (a *API) CreateInfraEnv(ctx context.Context, base, name, ntp string) (InfraEnv, error) {
	var ie InfraEnv
	ps, key := pullSecret, sshKey
	in := map[string]any{"name": name, "pull_secret": ps, "ssh_authorized_key": key,
		"cpu_architecture": "x86_64", "additional_ntp_sources": ntp}
	code, b, err := a.Do(ctx, base, http.MethodPost, "/infra-envs", in, &ie)
	if err == nil && code != http.StatusCreated {
		err = fmt.Errorf("%w: create infra-env %s through %s: %d %s", ErrRack, name, base, code, b)
	}
	return ie, err
}

// GetInfraEnv reads an infra-env through base.
func (a *API) GetInfraEnv(ctx context.Context, base, id string) (InfraEnv, int, error) {
	var ie InfraEnv
	code, b, err := a.Do(ctx, base, http.MethodGet, "/infra-envs/"+id, nil, &ie)
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("%w: get infra-env %s through %s: %d %s", ErrRack, id, base, code, b)
	}
	return ie, code, err
}

// SetNTP patches an infra-env's additional NTP sources through base; it
// returns the status code (0: no answer).
func (a *API) SetNTP(ctx context.Context, base, id, ntp string) (int, error) {
	code, b, err := a.Do(ctx, base, http.MethodPatch, "/infra-envs/"+id, map[string]string{"additional_ntp_sources": ntp}, nil)
	if err == nil && code != http.StatusCreated {
		err = fmt.Errorf("%w: patch infra-env %s through %s: %d %s", ErrRack, id, base, code, b)
	}
	return code, err
}

// NewAPI is an admin client of the rack's REST API over c.
func NewAPI(c *http.Client, token string) *API { return &API{http: c, token: token} }

// KeepAliveClient is an HTTP client whose connections start in the
// client namespace and are kept open between requests (for load).
func (r *Rack) KeepAliveClient(timeout time.Duration, conns int) *http.Client {
	c := r.HTTP(timeout)
	tr := c.Transport.(*http.Transport)
	tr.DisableKeepAlives = false
	tr.MaxIdleConnsPerHost = conns
	return c
}
