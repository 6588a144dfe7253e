package redfish

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"

	"github.com/rackboot/rackboot/bmc"
)

// Driver is a bmc.Driver for one machine behind one Redfish service. It
// connects on first use and keeps the connection; it is safe for concurrent
// use (requests to one BMC are serialised, as BMCs prefer).
type Driver struct {
	addr  bmc.Address
	creds bmc.Credentials
	opts  bmc.Options
	httpc *http.Client

	mu     sync.Mutex
	api    *gofish.APIClient
	system string
}

var _ bmc.Driver = (*Driver)(nil)

// New returns a driver for the machine at addr. Nothing is sent until the
// first operation. TLS certificates are verified unless
// creds.InsecureSkipVerify is set.
func New(addr bmc.Address, creds bmc.Credentials, opts bmc.Options) *Driver {
	opts = opts.Defaults()
	base := &http.Transport{
		// No proxy from the environment: BMCs sit on the rack's network.
		Proxy:               nil,
		TLSClientConfig:     &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: creds.InsecureSkipVerify}, //nolint:gosec // the operator's per-BMC choice
		TLSHandshakeTimeout: opts.RequestTimeout,
		MaxIdleConnsPerHost: 1,
		IdleConnTimeout:     30 * time.Second,
	}
	return &Driver{
		addr:  addr,
		creds: creds,
		opts:  opts,
		httpc: &http.Client{Transport: &retryTransport{
			base: base, attempts: opts.Attempts, backoff: opts.Backoff, timeout: opts.RequestTimeout,
			log: opts.Logger.With("host", addr.Host), user: creds.Username, pass: creds.Password,
		}},
	}
}

// Open parses a metal3 BMC address (see bmc.ParseAddress) and returns a
// driver for it.
func Open(address string, creds bmc.Credentials, opts bmc.Options) (*Driver, error) {
	addr, err := bmc.ParseAddress(address)
	if err != nil {
		return nil, err
	}
	return New(addr, creds, opts), nil
}

// Address is the address the driver was made for.
func (d *Driver) Address() bmc.Address { return d.addr }

// client returns the connected gofish client bound to ctx and the path of
// the machine's ComputerSystem.
func (d *Driver) client(ctx context.Context, op string) (*gofish.APIClient, string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.api == nil {
		api, err := gofish.ConnectContext(ctx, gofish.ClientConfig{
			Endpoint:          d.addr.Endpoint(),
			Username:          d.creds.Username,
			Password:          d.creds.Password,
			BasicAuth:         true,
			HTTPClient:        d.httpc,
			NoModifyTransport: true,
			ReuseConnections:  true,
		})
		if err != nil {
			return nil, "", d.fail(op, err)
		}
		d.api = api
	}
	api := d.api.WithContext(ctx)
	if d.system == "" {
		sys, err := d.findSystem(api, op)
		if err != nil {
			return nil, "", err
		}
		d.system = sys
	}
	return api, d.system, nil
}

// findSystem resolves the machine's path: the one from the address, or the
// only member of the Systems collection.
func (d *Driver) findSystem(api *gofish.APIClient, op string) (string, error) {
	if d.addr.SystemPath != "" {
		return d.addr.SystemPath, nil
	}
	members, err := d.members(api, op, "/redfish/v1/Systems")
	if err != nil {
		return "", err
	}
	if len(members) != 1 {
		return "", d.failf(op, bmc.ErrBMC, "the BMC has %d systems; name one in the address (%s<id>)",
			len(members), bmc.SystemsPrefix)
	}
	return members[0], nil
}

// members lists the @odata.id of a collection's members, in order.
func (d *Driver) members(api *gofish.APIClient, op, path string) ([]string, error) {
	var coll struct {
		Members []odataRef `json:"Members"`
	}
	if err := d.getJSON(api, op, path, &coll); err != nil {
		return nil, err
	}
	var out []string
	for _, m := range coll.Members {
		if m.ID != "" {
			out = append(out, m.ID)
		}
	}
	return out, nil
}

// odataRef is a Redfish link.
type odataRef struct {
	ID string `json:"@odata.id"`
}

// getJSON GETs path and decodes the answer into v.
func (d *Driver) getJSON(api *gofish.APIClient, op, path string, v any) error {
	resp, err := api.Get(path)
	if err != nil {
		return d.fail(op, err)
	}
	defer schemas.DeferredCleanupHTTPResponse(resp)
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return d.fail(op, err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return d.failf(op, bmc.ErrBMC, "malformed answer to GET %s: %v", path, err)
	}
	return nil
}

// send POSTs or PATCHes payload to path. A PATCH refused for want of an
// ETag (428, or 412 for a stale one) is sent again with If-Match.
func (d *Driver) send(api *gofish.APIClient, op, method, path string, payload any) error {
	var resp *http.Response
	var err error
	switch method {
	case http.MethodPost:
		resp, err = api.Post(path, payload)
	case http.MethodPatch:
		resp, err = api.Patch(path, payload)
		if code := statusOf(err); code == http.StatusPreconditionRequired || code == http.StatusPreconditionFailed {
			resp, err = d.patchIfMatch(api, path, payload)
		}
	default:
		return fmt.Errorf("redfish: unexpected method %s", method)
	}
	if err != nil {
		return d.fail(op, err)
	}
	schemas.DeferredCleanupHTTPResponse(resp)
	return nil
}

func (d *Driver) patchIfMatch(api *gofish.APIClient, path string, payload any) (*http.Response, error) {
	resp, err := api.Get(path)
	if err != nil {
		return nil, err
	}
	etag := resp.Header.Get("ETag")
	var doc struct {
		ETag string `json:"@odata.etag"`
	}
	if etag == "" {
		_ = json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(&doc)
		etag = doc.ETag
	}
	schemas.DeferredCleanupHTTPResponse(resp)
	if etag == "" {
		etag = "*"
	}
	return api.PatchWithHeaders(path, payload, map[string]string{"If-Match": etag})
}

// statusOf is the HTTP status of a gofish error, or 0.
func statusOf(err error) int {
	var re *schemas.Error
	if errors.As(err, &re) {
		return re.HTTPReturnedStatusCode
	}
	return 0
}
