package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"
)

// Sentinel errors. An *APIError matches the one of its status class.
var (
	ErrConfig       = errors.New("client: bad configuration")
	ErrBadRequest   = errors.New("bad request")
	ErrUnauthorized = errors.New("unauthorized")
	ErrForbidden    = errors.New("forbidden")
	ErrNotFound     = errors.New("not found")
	ErrConflict     = errors.New("conflict")
	ErrServer       = errors.New("server error")
	ErrProtocol     = errors.New("unexpected answer")
)

// maxReason bounds the reason text kept from an error answer.
const maxReason = 1024

// APIError is a non-2xx answer of the API.
type APIError struct {
	Method string
	Path   string // the request path, without query
	Status int
	// Reason is the server's explanation (its "reason" or "message"), or
	// the start of the body when it sent no error document.
	Reason string
	// Validations are the failing validations a 409 of actions/install
	// lists (their messages cleaned like Reason).
	Validations []FailingValidation
}

// Error is "<reason> (HTTP <status>)", or the status text alone.
func (e *APIError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("%s %s: HTTP %d %s", e.Method, e.Path, e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("%s (HTTP %d)", e.Reason, e.Status)
}

// Is matches the sentinel of the status.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrBadRequest:
		return e.Status == http.StatusBadRequest || e.Status == http.StatusUnprocessableEntity ||
			e.Status == http.StatusRequestEntityTooLarge
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized
	case ErrForbidden:
		return e.Status == http.StatusForbidden
	case ErrNotFound:
		return e.Status == http.StatusNotFound
	case ErrConflict:
		return e.Status == http.StatusConflict
	case ErrServer:
		return e.Status >= 500
	}
	return false
}

// newAPIError builds the error of an answer with status code and body.
// Token text is removed from the reason in case a server echoed it.
func newAPIError(method, path string, code int, body []byte, token string) *APIError {
	e := &APIError{Method: method, Path: path, Status: code}
	var doc Error
	if json.Unmarshal(body, &doc) == nil {
		e.Reason = doc.Reason
		if e.Reason == "" {
			e.Reason = doc.Message
		}
		for _, v := range doc.Validations {
			e.Validations = append(e.Validations, FailingValidation{ID: cleanReason(v.ID, token),
				Status: cleanReason(v.Status, token), Message: cleanReason(v.Message, token), HostID: cleanReason(v.HostID, token)})
		}
	}
	if e.Reason == "" {
		e.Reason = strings.TrimSpace(string(body))
	}
	e.Reason = cleanReason(e.Reason, token)
	return e
}

// cleanReason drops control characters, bounds the length and redacts
// token.
func cleanReason(s, token string) string {
	if token != "" {
		s = strings.ReplaceAll(s, token, "[redacted]")
	}
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	if len(s) > maxReason {
		s = strings.ToValidUTF8(s[:maxReason], "") + "…" // the cut may split a rune
	}
	return strings.TrimSpace(s)
}
