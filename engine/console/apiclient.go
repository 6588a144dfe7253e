package console

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rackboot/rackboot/engine/models"
	"io"
	"net/http"
	"strings"
)

// ErrAPI: the API refused a request; the text is the API's reason.
var ErrAPI = errors.New("console: the API refused")

// recorder is an in-memory http.ResponseWriter for in-process API calls.
type recorder struct {
	hdr  http.Header
	code int
	body bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.hdr }
func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// call sends an admin request to the API in process and returns the
// body of a 2xx answer; another status is ErrAPI with the API's reason.
func (c *Console) call(ctx context.Context, method, path string, in any) ([]byte, error) {
	var body io.Reader = http.NoBody
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("console: encode %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, models.BasePath+path, body)
	if err != nil {
		return nil, fmt.Errorf("console: %s %s: %w", method, path, err)
	}
	req.RemoteAddr = "127.0.0.1:0"
	req.Header.Set("Authorization", "Bearer "+c.admin)
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := &recorder{hdr: http.Header{}}
	c.api.ServeHTTP(rec, req)
	if rec.code == 0 {
		rec.code = http.StatusOK
	}
	if rec.code < 200 || rec.code > 299 {
		return nil, &apiError{code: rec.code, reason: reason(rec.body.Bytes(), rec.code)}
	}
	return rec.body.Bytes(), nil
}

// apiError is a refusal of the API: its status and reason.
type apiError struct {
	code   int
	reason string
}

func (e *apiError) Error() string { return e.reason }
func (e *apiError) Unwrap() error { return ErrAPI }

// statusOf is the status a page shows err with: the API's own for a
// refusal (404 for an unknown host, 409 for a conflict…), else 502.
func statusOf(err error) int {
	var ae *apiError
	if errors.As(err, &ae) && ae.code >= 400 {
		return ae.code
	}
	return http.StatusBadGateway
}

// reason is the reason of an upstream error document, or the status.
func reason(b []byte, code int) string {
	var doc struct {
		Reason string `json:"reason"`
	}
	if json.Unmarshal(b, &doc) == nil && doc.Reason != "" {
		return doc.Reason
	}
	if s := strings.TrimSpace(string(b)); s != "" && len(s) < 300 {
		return s
	}
	return http.StatusText(code)
}

// get decodes the answer of a GET into out.
func (c *Console) get(ctx context.Context, path string, out any) error {
	b, err := c.call(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("console: decode %s: %w", path, err)
	}
	return nil
}
