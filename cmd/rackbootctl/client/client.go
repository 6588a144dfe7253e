package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/rackboot/rackboot/engine/models"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// BasePath is the API's path prefix.
const BasePath = models.BasePath

// maxBody bounds an answer read into memory (downloads stream instead).
const maxBody = 64 << 20

// Config says where the API is and how to authenticate.
type Config struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:8080; a trailing
	// /api/assisted-install or /api/assisted-install/v2 is accepted.
	URL string
	// Token is the admin bearer token; empty sends no Authorization.
	Token string
	// HTTP is the client to use; nil means one with a 60 s timeout.
	HTTP *http.Client
	// Log, when set, gets one debug line per request (method, path,
	// status) — never the token or a body.
	Log *slog.Logger
	// UserAgent is sent as User-Agent.
	UserAgent string
}

// Client talks to one rackbootd. It is safe for concurrent use.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
	log   *slog.Logger
	ua    string
}

// New checks cfg and returns a client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: server URL %q is not an http(s) URL", ErrConfig, cfg.URL)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: server URL must not carry credentials, a query or a fragment", ErrConfig)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.Path = strings.TrimSuffix(u.Path, "/v2")
	u.Path = strings.TrimSuffix(u.Path, "/api/assisted-install")
	u.RawPath = ""
	if strings.ContainsAny(cfg.Token, "\r\n \t") {
		return nil, fmt.Errorf("%w: the token contains white space", ErrConfig)
	}
	hc := cfg.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	lg := cfg.Log
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	return &Client{base: u, token: cfg.Token, http: hc, log: lg, ua: cfg.UserAgent}, nil
}

// BaseURL is the server URL without the API path.
func (c *Client) BaseURL() string { return c.base.String() }

// call sends method to BasePath+path with in as JSON body (nil: none),
// expects one of the 2xx statuses and decodes the answer into out (nil:
// discard).
func (c *Client) call(ctx context.Context, method, path string, q url.Values, in, out any) error {
	resp, err := c.send(ctx, method, path, q, in)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil || resp.StatusCode == http.StatusNoContent {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("%s %s: reading answer: %w", method, path, err)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%w: %s %s: %w", ErrProtocol, method, path, err)
	}
	return nil
}

// send does the request and returns a 2xx answer; any other status is
// an *APIError (the body is closed).
func (c *Client) send(ctx context.Context, method, path string, q url.Values, in any) (*http.Response, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("%s %s: encoding request: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	u := *c.base
	u.Path = c.base.Path + BasePath + path
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.ua != "" {
		req.Header.Set("User-Agent", c.ua)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, scrub(err, c.token))
	}
	c.log.DebugContext(ctx, "api", "method", method, "path", BasePath+path, "status", resp.StatusCode)
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return nil, newAPIError(method, BasePath+path, resp.StatusCode, b, c.token)
}

// scrub keeps err but makes sure its text cannot carry the token.
func scrub(err error, token string) error {
	if token == "" || !strings.Contains(err.Error(), token) {
		return err
	}
	return &redacted{err: err, token: token}
}

type redacted struct {
	err   error
	token string
}

func (r *redacted) Error() string { return strings.ReplaceAll(r.err.Error(), r.token, "[redacted]") }
func (r *redacted) Unwrap() error { return r.err }

// pathID escapes one path segment.
func pathID(id string) string { return url.PathEscape(id) }
