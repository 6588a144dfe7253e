package protocol

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

// APIPath is the path prefix of the v2 API on the service.
const APIPath = models.BasePath

// MaxResponseBytes bounds every response body the client reads.
const MaxResponseBytes = 4 << 20

// Sentinel errors; every error the client returns wraps one of them.
var (
	// ErrConfig: the client's configuration cannot work.
	ErrConfig = errors.New("protocol: bad configuration")
	// ErrPermanent: the service refused the agent for good (401, 403, 404,
	// 409); retrying will not help.
	ErrPermanent = errors.New("protocol: refused by the service")
	// ErrStatus: an unexpected status code that may go away on retry.
	ErrStatus = errors.New("protocol: unexpected status")
	// ErrTransport: the service could not be reached or the exchange broke.
	ErrTransport = errors.New("protocol: service unreachable")
	// ErrDecode: the service answered with a body the client cannot read.
	ErrDecode = errors.New("protocol: malformed response")
)

// Config says where the service is and who the agent is.
type Config struct {
	// URL is the service's base URL, e.g. http://10.0.0.1:8090. A trailing
	// /api/assisted-install (or .../v2) is accepted and dropped.
	URL string
	// InfraEnvID is the infra-env the host registers in.
	InfraEnvID string
	// Token is the infra-env's agent token, sent as X-Secret-Key.
	Token string
	// AgentVersion is sent as discovery_agent_version.
	AgentVersion string
	// HTTP is the client to use; nil means a client with a 30 s timeout.
	HTTP *http.Client
	// OnDate, when set, is called with every answer's Date header and the
	// local times the request was sent and the answer received, so the
	// caller can compare the local clock with the service's.
	OnDate func(sent, received, date time.Time)
}

// Client talks to one service for one infra-env. It is safe for
// concurrent use.
type Client struct {
	base    *url.URL
	infra   string
	token   string
	version string
	http    *http.Client
	onDate  func(sent, received, date time.Time)
}

// New checks cfg and returns a client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: service URL %q is not an http(s) URL", ErrConfig, redact(cfg.URL, cfg.Token))
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: service URL must not carry credentials, a query or a fragment", ErrConfig)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.Path = strings.TrimSuffix(u.Path, "/v2")
	u.Path = strings.TrimSuffix(u.Path, "/api/assisted-install")
	u.RawPath = ""
	if !validID(cfg.InfraEnvID) {
		return nil, fmt.Errorf("%w: infra-env id %q is not 8-4-4-4-12 hex", ErrConfig, cfg.InfraEnvID)
	}
	if strings.ContainsAny(cfg.Token, "\r\n") || strings.ContainsAny(cfg.AgentVersion, "\r\n") {
		return nil, fmt.Errorf("%w: token or agent version contains a line break", ErrConfig)
	}
	hc := cfg.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	return &Client{base: u, infra: strings.ToLower(cfg.InfraEnvID), token: cfg.Token, version: cfg.AgentVersion, http: hc, onDate: cfg.OnDate}, nil
}

// BaseURL is the service URL the client talks to (no API path).
func (c *Client) BaseURL() string { return c.base.String() }

// InfraEnvID is the infra-env the client registers in.
func (c *Client) InfraEnvID() string { return c.infra }

// Register registers hostID in the infra-env: POST .../infra-envs/{id}/hosts,
// expecting 201.
func (c *Client) Register(ctx context.Context, hostID string) (*models.HostRegistrationResponse, error) {
	if !validID(hostID) {
		return nil, fmt.Errorf("%w: host id %q is not 8-4-4-4-12 hex", ErrConfig, hostID)
	}
	body := models.HostCreateParams{DiscoveryAgentVersion: c.version, HostID: hostID}
	var out models.HostRegistrationResponse
	if err := c.do(ctx, "register", http.MethodPost, c.hostsPath(), nil, body, http.StatusCreated, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// NextSteps asks for the host's instructions: GET
// .../hosts/{host_id}/instructions?timestamp=<unix>, expecting 200.
func (c *Client) NextSteps(ctx context.Context, hostID string, now time.Time) (*models.Steps, error) {
	if !validID(hostID) {
		return nil, fmt.Errorf("%w: host id %q is not 8-4-4-4-12 hex", ErrConfig, hostID)
	}
	q := url.Values{"timestamp": {strconv.FormatInt(now.Unix(), 10)}}
	var raw json.RawMessage
	if err := c.do(ctx, "instructions", http.MethodGet, c.hostsPath()+"/"+hostID+"/instructions", q, nil, http.StatusOK, &raw); err != nil {
		return nil, err
	}
	return DecodeSteps(bytes.NewReader(raw))
}

// PostReply sends one step's result: POST .../hosts/{host_id}/instructions,
// expecting 204.
func (c *Client) PostReply(ctx context.Context, hostID string, reply *models.StepReply) error {
	if !validID(hostID) {
		return fmt.Errorf("%w: host id %q is not 8-4-4-4-12 hex", ErrConfig, hostID)
	}
	return c.do(ctx, "step reply", http.MethodPost, c.hostsPath()+"/"+hostID+"/instructions", nil, reply, http.StatusNoContent, nil)
}

func (c *Client) hostsPath() string {
	return c.base.Path + APIPath + "/infra-envs/" + c.infra + "/hosts"
}

// do sends one request and decodes a want-status answer into out (when
// out is not nil).
func (c *Client) do(ctx context.Context, op, method, path string, q url.Values, in any, want int, out any) error {
	u := *c.base
	u.Path = path
	u.RawQuery = q.Encode()
	return c.doURL(ctx, op, method, &u, MaxResponseBytes, in, want, out)
}

// doURL is do with a full URL, which must be on the service, and a bound
// on the answer's size.
func (c *Client) doURL(ctx context.Context, op, method string, u *url.URL, limit int, in any, want int, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("protocol: %s: encode body: %w", op, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrConfig, op, err)
	}
	c.setHeaders(req, in != nil)
	sent := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %s: %s", ErrTransport, op, redact(err.Error(), c.token))
	}
	defer resp.Body.Close()
	if date, err := http.ParseTime(resp.Header.Get("Date")); err == nil && c.onDate != nil {
		c.onDate(sent, time.Now(), date)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return fmt.Errorf("%w: %s: reading answer: %s", ErrTransport, op, redact(err.Error(), c.token))
	}
	if len(data) > limit {
		return fmt.Errorf("%w: %s: answer larger than %d bytes", ErrDecode, op, limit)
	}
	if resp.StatusCode != want {
		return c.statusError(op, resp.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrDecode, op, err)
	}
	return nil
}

func (c *Client) setHeaders(req *http.Request, hasBody bool) {
	h := req.Header
	h.Set("Accept", "application/json")
	h.Set("discovery_agent_version", c.version)
	h.Set("X-Request-Id", newRequestID())
	h.Set("X-Secret-Key", c.token)
	if hasBody {
		h.Set("Content-Type", "application/json")
	}
}

// StatusError is an answer with a status code the call did not expect.
type StatusError struct {
	Op     string
	Code   int
	Reason string // the service's "reason", redacted and shortened
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("protocol: %s: service answered %d %s", e.Op, e.Code, http.StatusText(e.Code))
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Unwrap makes errors.Is match ErrPermanent or ErrStatus.
func (e *StatusError) Unwrap() error {
	if permanentCode(e.Code) {
		return ErrPermanent
	}
	return ErrStatus
}

func permanentCode(code int) bool {
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusConflict:
		return true
	}
	return false
}

// IsPermanent reports whether err means the service refused the agent for
// good (401, 403, 404, 409).
func IsPermanent(err error) bool { return errors.Is(err, ErrPermanent) }

func (c *Client) statusError(op string, code int, body []byte) error {
	var e struct {
		Reason  string `json:"reason"`
		Message string `json:"message"` // upstream's InfraError (401 and 403 of the agent's calls)
	}
	_ = json.Unmarshal(body, &e) // the reason is a courtesy; a bad body leaves it empty
	if e.Reason == "" {
		e.Reason = e.Message
	}
	reason := redact(e.Reason, c.token)
	if len(reason) > 200 {
		reason = reason[:200] + "…"
	}
	return &StatusError{Op: op, Code: code, Reason: strings.ToValidUTF8(reason, "?")}
}

// redact removes the token from s.
func redact(s, token string) string {
	if token == "" {
		return s
	}
	return strings.ReplaceAll(s, token, "[redacted]")
}

// newRequestID returns a random RFC 4122 version 4 UUID.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return FormatUUID(b)
}

// FormatUUID formats 16 bytes as 8-4-4-4-12 lower-case hex.
func FormatUUID(b [16]byte) string {
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, v := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[v>>4], hex[v&0xf])
	}
	return string(out)
}

// validID reports whether s is 8-4-4-4-12 hex. The UUID version is not
// checked: upstream's host ids are not always RFC 4122.
func validID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		default:
			return false
		}
	}
	return true
}

// ValidID reports whether s is an 8-4-4-4-12 hex id.
func ValidID(s string) bool { return validID(s) }
