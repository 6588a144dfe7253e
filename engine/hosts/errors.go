package hosts

import (
	"fmt"

	"github.com/rackboot/rackboot/engine"
)

// refusal is a sentinel error of a refused request: it reads as the front
// doors have always worded it and wraps the engine sentinel of its kind.
type refusal struct {
	text string
	kind error
}

func (r *refusal) Error() string { return r.text }
func (r *refusal) Unwrap() error { return r.kind }

// Refusals: a request the domain refuses changes nothing. Each wraps
// engine.ErrInvalid, engine.ErrNotFound or engine.ErrConflict; the REST
// API answers them 400, 404 and 409.
var (
	// ErrInvalid: a missing or invalid value.
	ErrInvalid error = &refusal{"bad request", engine.ErrInvalid}
	// ErrNotFound: the object named does not exist.
	ErrNotFound error = &refusal{"not found", engine.ErrNotFound}
	// ErrConflict: the request contradicts the current state.
	ErrConflict error = &refusal{"conflict", engine.ErrConflict}
)

// Invalid returns an ErrInvalid with a reason.
func Invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Clip shortens user input echoed in an error.
func Clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
