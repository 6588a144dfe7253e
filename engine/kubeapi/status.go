package kubeapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackboot/rackboot/engine"
)

// apiError is a failure answered with a metav1.Status.
type apiError struct {
	status metav1.Status
}

func (e *apiError) Error() string { return e.status.Message }

func newStatus(code int32, reason metav1.StatusReason, msg string, details *metav1.StatusDetails) *apiError {
	return &apiError{status: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Message: msg, Reason: reason, Code: code, Details: details,
	}}
}

func details(r *Resource, name string) *metav1.StatusDetails {
	return &metav1.StatusDetails{Name: name, Group: r.Group, Kind: r.Plural}
}

func errNotFound(r *Resource, name string) *apiError {
	return newStatus(http.StatusNotFound, metav1.StatusReasonNotFound,
		fmt.Sprintf("%s %q not found", r.GroupResource(), name), details(r, name))
}

func errAlreadyExists(r *Resource, name string) *apiError {
	return newStatus(http.StatusConflict, metav1.StatusReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", r.GroupResource(), name), details(r, name))
}

func errConflict(r *Resource, name string) *apiError {
	return newStatus(http.StatusConflict, metav1.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again",
			r.GroupResource(), name), details(r, name))
}

func errBadRequest(format string, args ...any) *apiError {
	return newStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest, fmt.Sprintf(format, args...), nil)
}

func errMethod(method string) *apiError {
	return newStatus(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
		fmt.Sprintf("the server does not allow this method on the requested resource (%s)", method), nil)
}

// cause is one field error of an Invalid status.
type cause struct {
	field, msg string
	typ        metav1.CauseType
}

// errInvalid is 422 Invalid, worded as the API server words it:
// `Kind.group "name" is invalid: field: message` (several in brackets).
func errInvalid(r *Resource, name string, causes ...cause) *apiError {
	d := &metav1.StatusDetails{Name: name, Group: r.Group, Kind: r.Kind}
	var parts []string
	for _, c := range causes {
		parts = append(parts, c.field+": "+c.msg)
		d.Causes = append(d.Causes, metav1.StatusCause{Type: c.typ, Message: c.msg, Field: c.field})
	}
	list := strings.Join(parts, ", ")
	if len(parts) > 1 {
		list = "[" + list + "]"
	}
	msg := fmt.Sprintf("%s %q is invalid: %s", kindGroup(r), name, list)
	return newStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, msg, d)
}

func kindGroup(r *Resource) string {
	if r.Group == "" {
		return r.Kind
	}
	return r.Kind + "." + r.Group
}

// storeError turns a Store.Apply error into the API's answer.
func storeError(r *Resource, name string, err error) *apiError {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		return ae
	case engine.IsExists(err):
		return errAlreadyExists(r, name)
	case errors.Is(err, engine.ErrConflict):
		return errConflict(r, name)
	case errors.Is(err, engine.ErrNotFound):
		return errNotFound(r, name)
	case errors.Is(err, engine.ErrInvalid):
		return errInvalid(r, name, cause{field: "metadata", msg: err.Error(), typ: metav1.CauseTypeFieldValueInvalid})
	case errors.Is(err, engine.ErrNotLeader):
		return newStatus(http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "no leader: retry later", nil)
	}
	return newStatus(http.StatusInternalServerError, metav1.StatusReasonInternalError, "internal error", nil)
}

// writeStatus answers with err's status (any other error is a 500 that
// says nothing of it: errors may name secrets' fields).
func writeStatus(w http.ResponseWriter, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = newStatus(http.StatusInternalServerError, metav1.StatusReasonInternalError, "internal error", nil)
	}
	writeJSON(w, int(ae.status.Code), ae.status)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
