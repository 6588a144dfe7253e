package engine

import (
	"errors"
	"fmt"
)

// Domain errors. Apply results wrap one of them with context; test with
// errors.Is.
var (
	// ErrNotFound: the object a command names does not exist.
	ErrNotFound = errors.New("engine: not found")
	// ErrConflict: the command contradicts the current state (duplicate id,
	// object in use, unexpected status).
	ErrConflict = errors.New("engine: conflict")
	// ErrInvalid: the command itself is malformed (missing id, bad value).
	ErrInvalid = errors.New("engine: invalid")
	// ErrNotLeader: this node cannot accept writes now.
	ErrNotLeader = errors.New("engine: not the leader")
	// ErrUndecodable: a log entry is not a command this rackboot knows (a
	// bug, or an entry written by a newer rackboot). Nothing after it may
	// be applied.
	ErrUndecodable = errors.New("engine: log entry cannot be decoded")
)

func notFound(kind Kind, id string) error {
	return fmt.Errorf("%w: %s %q", ErrNotFound, kind, id)
}

func conflict(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrConflict, fmt.Sprintf(format, args...))
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}
