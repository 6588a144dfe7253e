package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
)

// maxBody bounds an answer read into memory.
const maxBody = 64 << 20

// Content types of requests and answers.
const (
	contentJSON      = "application/json"
	contentMerge     = "application/merge-patch+json"
	acceptTable      = "application/json;as=Table;v=v1;g=meta.k8s.io"
	headerAuthorized = "Authorization"
)

// ErrConfig: a bad base URL or token.
var ErrConfig = errors.New("kube: bad configuration")

// Config says where the API is and how to authenticate.
type Config struct {
	URL       string // http(s)://host:port, no path
	Token     string // the admin token
	HTTP      *http.Client
	UserAgent string
	// Log, when set, gets one debug line per request (method, path,
	// status), never the token or a body.
	Log *slog.Logger
}

// Client talks to one rackbootd's Kubernetes-compatible API. It caches
// the discovery answer; it is not safe for concurrent first use.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
	ua    string
	log   *slog.Logger
	res   []Resource
}

// New checks cfg and returns a client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: server URL %q is not an http(s) URL", ErrConfig, cfg.URL)
	}
	u.Path, u.RawPath, u.RawQuery = "", "", ""
	hc := cfg.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	lg := cfg.Log
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	return &Client{base: u, token: cfg.Token, http: hc, ua: cfg.UserAgent, log: lg}, nil
}

// StatusError is an answer other than 2xx: the server's Status.
type StatusError struct {
	Status metav1.Status
}

// Error is the server's message and its reason, as
// `infraenvs.agent-install.openshift.io "x" not found (NotFound)`.
func (e *StatusError) Error() string {
	msg, reason := e.Status.Message, string(e.Status.Reason)
	if msg == "" {
		msg = fmt.Sprintf("HTTP %d %s", e.Status.Code, http.StatusText(int(e.Status.Code)))
	}
	if reason == "" {
		return msg
	}
	return msg + " (" + reason + ")"
}

// Is matches the REST client's sentinels of 401 and 403, so the CLI
// explains them the same way for both APIs.
func (e *StatusError) Is(target error) bool {
	switch target {
	case client.ErrUnauthorized:
		return e.Status.Code == http.StatusUnauthorized
	case client.ErrForbidden:
		return e.Status.Code == http.StatusForbidden
	}
	return false
}

// Reason is err's Status reason, or "" when err is no *StatusError.
func Reason(err error) metav1.StatusReason {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status.Reason
	}
	return ""
}

// IsNotFound reports whether err is a NotFound Status.
func IsNotFound(err error) bool { return Reason(err) == metav1.StatusReasonNotFound }

// request is one call.
type request struct {
	method, path string
	query        url.Values
	ctype        string // of body
	body         []byte
	accept       string
}

// open sends r and returns a 2xx answer (the caller closes its body).
func (c *Client) open(ctx context.Context, r request) (*http.Response, error) {
	u := *c.base
	u.Path = r.path
	u.RawQuery = r.query.Encode()
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	req.Header.Set("Accept", contentJSON)
	if r.accept != "" {
		req.Header.Set("Accept", r.accept)
	}
	if r.body != nil {
		req.Header.Set("Content-Type", r.ctype)
	}
	if c.token != "" {
		req.Header.Set(headerAuthorized, "Bearer "+c.token)
	}
	if c.ua != "" {
		req.Header.Set("User-Agent", c.ua)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	c.log.DebugContext(ctx, "kube api", "method", r.method, "path", r.path, "status", resp.StatusCode)
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return nil, statusError(resp.StatusCode, b)
}

// do sends r and decodes a 2xx answer into out (nil: discard).
func (c *Client) do(ctx context.Context, r request, out any) error {
	resp, err := c.open(ctx, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", r.method, r.path, err)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: decoding the answer: %w", r.method, r.path, err)
	}
	return nil
}

// statusError decodes a Status body, else keeps the start of the body.
func statusError(code int, body []byte) *StatusError {
	var st metav1.Status
	if json.Unmarshal(body, &st) != nil || st.Kind != "Status" {
		st = metav1.Status{Message: strings.TrimSpace(string(body))}
		if len(st.Message) > 512 {
			st.Message = st.Message[:512]
		}
	}
	if st.Code == 0 {
		st.Code = int32(code)
	}
	return &StatusError{Status: st}
}
