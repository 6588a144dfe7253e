package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/clusters"
	"github.com/rackboot/rackboot/engine/hosts"
)

// Sentinel errors of the handler; each maps to one HTTP status. The first
// three are the domain's refusals (engine/hosts).
var (
	// ErrBadRequest: malformed JSON, a missing or invalid field (400).
	ErrBadRequest = hosts.ErrInvalid
	// ErrNotFound: the object the URL names does not exist (404).
	ErrNotFound = hosts.ErrNotFound
	// ErrConflict: the request contradicts the current state (409).
	ErrConflict = hosts.ErrConflict
	// ErrTooLarge: the request body exceeds the limit (413).
	ErrTooLarge = errors.New("request body too large")
	// ErrMethod: the path exists but not with this method (405).
	ErrMethod = errors.New("method not allowed")
)

// Error is upstream's error document.
type Error struct {
	Code   string `json:"code"`
	Href   string `json:"href"`
	ID     int32  `json:"id"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
}

// statusOf maps an error to its HTTP status.
func statusOf(err error) int {
	switch {
	case errors.Is(err, ErrBadRequest), errors.Is(err, engine.ErrInvalid),
		errors.Is(err, discovery.ErrInvalidInput), errors.Is(err, discovery.ErrInvalidOverride),
		errors.Is(err, discovery.ErrTooLarge):
		return http.StatusBadRequest
	case errors.Is(err, ErrNotFound), errors.Is(err, engine.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrConflict), errors.Is(err, engine.ErrConflict):
		return http.StatusConflict
	case errors.Is(err, ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrMethod):
		return http.StatusMethodNotAllowed
	case errors.Is(err, engine.ErrNotLeader):
		return http.StatusServiceUnavailable
	}
	if s := auth.HTTPStatus(err); s != http.StatusInternalServerError {
		return s
	}
	return http.StatusInternalServerError
}

// badRequest returns an ErrBadRequest with a reason.
func badRequest(format string, args ...any) error { return hosts.Invalid(format, args...) }

// writeError writes err as upstream's error document. Reasons of 5xx errors
// are logged, not sent.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := statusOf(err)
	reason := err.Error()
	if code >= 500 {
		s.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		reason = http.StatusText(code)
	}
	doc := Error{
		Code:   strconv.Itoa(code),
		Href:   "",
		ID:     int32(code),
		Kind:   "Error",
		Reason: reason,
	}
	var nr *clusters.NotReadyError
	if errors.As(err, &nr) {
		writeJSON(w, code, NotReadyDocument{Error: doc, Validations: nr.Validations})
		return
	}
	writeJSON(w, code, doc)
}

// writeJSON writes v as JSON with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"code":"500","href":"","id":500,"kind":"Error","reason":"Internal Server Error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

// logAttrs are the attributes of a request log line: never the query,
// which may carry an api_key.
func logAttrs(r *http.Request, code int) []slog.Attr {
	return []slog.Attr{
		slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", code), slog.String("request_id", r.Header.Get("X-Request-Id")),
	}
}

// forbidden returns an auth.ErrForbidden with a reason.
func forbidden(format string, args ...any) error {
	return fmt.Errorf("%w: %s", auth.ErrForbidden, fmt.Sprintf(format, args...))
}

// InfraError is upstream's error document of a 401 or 403 on the routes
// an agent credential may call (route.infraErr): upstream's agent decodes
// it and stops for good, where the generic document makes it retry
// forever.
type InfraError struct {
	Code    int32  `json:"code"`
	Message string `json:"message"`
}

func isAuthStatus(code int) bool {
	return code == http.StatusUnauthorized || code == http.StatusForbidden
}

// writeInfraError writes err as an InfraError with status code.
func writeInfraError(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, InfraError{Code: int32(code), Message: err.Error()})
}
