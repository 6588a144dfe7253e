package redfish

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"

	"github.com/stmcginnis/gofish/schemas"

	"github.com/rackboot/rackboot/bmc"
)

// classified is an error already wrapped with a bmc sentinel; fail passes it
// through unchanged. status is the HTTP status of the BMC's answer (0 if
// there was none).
type classified struct {
	error
	status int
}

func (c classified) Unwrap() error { return c.error }

// StatusCode is the HTTP status the BMC answered with, or 0.
func (c classified) StatusCode() int { return c.status }

// fail wraps err with the operation, the BMC host and a bmc sentinel, and
// scrubs the credentials from the text.
func (d *Driver) fail(op string, err error) error {
	var c classified
	if errors.As(err, &c) {
		return err
	}
	sentinel, msg := classify(err)
	hint := ""
	if sentinel == bmc.ErrUnreachable && isCertError(err) {
		hint = tlsHint
	}
	msg = clip(d.redact(msg))
	if hint != "" {
		msg += "; " + hint // the hint is ours: never clipped
	}
	status := 0
	var re *schemas.Error
	if errors.As(err, &re) {
		status = re.HTTPReturnedStatusCode
	}
	if ctxErr := contextErr(err); ctxErr != nil {
		return classified{fmt.Errorf("redfish %s on %s: %w: %w", op, d.addr.Host, sentinel, ctxErr), 0}
	}
	return classified{fmt.Errorf("redfish %s on %s: %w: %s", op, d.addr.Host, sentinel, msg), status}
}

// failf builds a classified error from a message of the driver's own.
func (d *Driver) failf(op string, sentinel error, format string, args ...any) error {
	msg := clip(d.redact(fmt.Sprintf(format, args...)))
	return classified{fmt.Errorf("redfish %s on %s: %w: %s", op, d.addr.Host, sentinel, msg), 0}
}

func contextErr(err error) error {
	if errors.Is(err, context.Canceled) {
		return context.Canceled
	}
	return nil
}

// tlsHint tells the operator what to do about an untrusted certificate;
// fail appends it after the clipped message, whole.
const tlsHint = "if this BMC has a self-signed certificate, turn verification off for it " +
	"(spec.bmc.disableCertificateVerification: true)"

// isCertError reports whether err is a refused TLS certificate.
func isCertError(err error) bool {
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	return errors.As(err, &certErr) || errors.As(err, &unknownCA) || errors.As(err, &hostErr)
}

// classify maps an error from gofish or net/http to a sentinel and a short
// human message.
func classify(err error) (error, string) {
	var re *schemas.Error
	if errors.As(err, &re) && re.HTTPReturnedStatusCode != 0 {
		return statusSentinel(re.HTTPReturnedStatusCode), fmt.Sprintf("HTTP %d%s", re.HTTPReturnedStatusCode, bmcMessage(re))
	}
	switch {
	case isCertError(err):
		return bmc.ErrUnreachable, "TLS certificate not trusted (" + rootCause(err) + ")"
	case errors.Is(err, context.Canceled):
		return bmc.ErrUnreachable, "canceled"
	case isTimeout(err):
		return bmc.ErrUnreachable, "no answer in time"
	}
	var netErr *net.OpError
	var urlErr *url.Error
	var recordErr tls.RecordHeaderError
	if errors.As(err, &netErr) || errors.As(err, &recordErr) || errors.Is(err, io.EOF) || errors.As(err, &urlErr) {
		return bmc.ErrUnreachable, rootCause(err)
	}
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) || errors.Is(err, io.ErrUnexpectedEOF) {
		return bmc.ErrBMC, "malformed answer: " + strings.TrimSpace(err.Error())
	}
	if errors.As(err, &re) {
		return bmc.ErrUnreachable, strings.TrimSpace(re.Message)
	}
	return bmc.ErrBMC, strings.TrimSpace(err.Error())
}

func statusSentinel(code int) error {
	switch code {
	case 401, 403:
		return bmc.ErrBadCredentials
	case 404, 405, 501:
		return bmc.ErrUnsupported
	}
	return bmc.ErrBMC
}

// bmcMessage is the first Redfish message of an error answer, or a clipped
// copy of the raw body.
func bmcMessage(re *schemas.Error) string {
	for _, info := range re.ExtendedInfos {
		if info.Message != "" {
			return ": " + strings.TrimSpace(info.Message)
		}
	}
	if re.Message != "" && re.Message != re.Code {
		return ": " + strings.TrimSpace(re.Message)
	}
	_, raw, _ := strings.Cut(re.Error(), ": ")
	if raw = strings.TrimSpace(raw); raw != "" {
		return ": " + raw
	}
	return ""
}

// rootCause is the innermost error's text (without the URL net/http adds).
func rootCause(err error) string {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err
	}
	return strings.TrimSpace(err.Error())
}

// clip keeps a BMC's text printable and short.
func clip(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// redact removes the password (plain, and as it travels in the Basic
// Authorization header) from text that may end up in an error.
func (d *Driver) redact(s string) string {
	pw := d.creds.Password
	if pw == "" {
		return s
	}
	basic := base64.StdEncoding.EncodeToString([]byte(d.creds.Username + ":" + pw))
	s = strings.ReplaceAll(s, basic, "[redacted]")
	return strings.ReplaceAll(s, pw, "[redacted]")
}
