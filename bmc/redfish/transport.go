package redfish

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// retryTransport gives every attempt its own timeout and retries transient
// failures with doubling backoff. It sits under gofish's client, so typed
// reads are retried as well as the driver's own requests.
type retryTransport struct {
	base     http.RoundTripper
	attempts int
	backoff  time.Duration
	timeout  time.Duration
	log      *slog.Logger
	// user and pass are sent as Basic auth on every request that carries no
	// credentials of its own, the service root included: a few BMCs refuse
	// it anonymously, and a 401 must then mean the password is wrong.
	user, pass string
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err, cancel := t.try(req, attempt)
		if attempt >= t.attempts || req.Context().Err() != nil || !retryable(req.Method, resp, err) {
			if err != nil {
				cancel()
				return nil, err
			}
			resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
			return resp, nil
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		cancel()
		wait := t.backoff << (attempt - 1)
		t.log.Debug("redfish request failed, retrying", "method", req.Method,
			"path", req.URL.Path, "attempt", attempt, "wait", wait, "reason", reason(resp, err))
		if err := sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// try sends one attempt with its own deadline. The returned cancel must be
// called once the response body is done with.
func (t *retryTransport) try(req *http.Request, attempt int) (*http.Response, error, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	r := req.Clone(ctx)
	if attempt > 1 && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err, cancel
		}
		r.Body = body
	}
	if r.Header.Get("Authorization") == "" && r.Header.Get("X-Auth-Token") == "" && t.user != "" {
		r.SetBasicAuth(t.user, t.pass)
	}
	resp, err := t.base.RoundTrip(r)
	return resp, err, cancel
}

// retryable: a dial failure never reached the BMC, and 503 says the BMC did
// not process the request, so both are retried for any method. Other
// transport failures (timeouts, resets) and other 5xx are retried only for
// requests that can be repeated (GET, HEAD, PATCH with the same body): a
// POSTed action such as Reset must not run twice.
func retryable(method string, resp *http.Response, err error) bool {
	idempotent := method == http.MethodGet || method == http.MethodHead || method == http.MethodPatch
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return !isTLSFailure(err)
		}
		return idempotent && !isTLSFailure(err)
	}
	switch resp.StatusCode {
	case http.StatusServiceUnavailable:
		return true
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return idempotent
	}
	return false
}

// isTLSFailure: an untrusted certificate will not become trusted by asking
// again.
func isTLSFailure(err error) bool {
	var certErr *tls.CertificateVerificationError
	var recordErr tls.RecordHeaderError
	return errors.As(err, &certErr) || errors.As(err, &recordErr)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

func reason(resp *http.Response, err error) string {
	if err != nil {
		return err.Error()
	}
	return resp.Status
}

func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// cancelBody releases the attempt's context when gofish closes the body.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
