package nmstate

import "errors"

// Sentinel errors; every error returned by this package wraps one of them
// inside an *Error that names the key path.
var (
	// ErrSyntax: the document is not YAML, or not a mapping at the top.
	ErrSyntax = errors.New("malformed YAML")
	// ErrUnknownKey: a key this converter does not know or does not support.
	ErrUnknownKey = errors.New("unknown or unsupported key")
	// ErrMissing: a required key is absent.
	ErrMissing = errors.New("required key missing")
	// ErrInvalid: a value has the wrong type, range or form.
	ErrInvalid = errors.New("invalid value")
	// ErrUndefined: a reference to an interface that is not defined.
	ErrUndefined = errors.New("undefined interface")
	// ErrConflict: two settings contradict each other.
	ErrConflict = errors.New("conflicting settings")
)

// Error is a conversion error at one key path, such as
// "interfaces[0].ipv4.address[1].prefix-length".
type Error struct {
	Path   string // key path inside the document; empty for the whole document
	Kind   error  // one of the sentinel errors
	Detail string // what exactly is wrong; may be empty
}

func (e *Error) Error() string {
	s := "nmstate: "
	if e.Path != "" {
		s += e.Path + ": "
	}
	s += e.Kind.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the sentinel error.
func (e *Error) Unwrap() error { return e.Kind }

func errAt(path string, kind error, detail string) *Error {
	return &Error{Path: path, Kind: kind, Detail: detail}
}
