package bmc

import "errors"

// Sentinel errors. Every error a Driver returns wraps exactly one of the last
// four, so a caller can decide with errors.Is whether to retry.
var (
	// ErrBadAddress: the BMC address does not parse (see ParseAddress).
	ErrBadAddress = errors.New("bad BMC address")
	// ErrBadCredentials: the BMC refused the user name or password (HTTP 401
	// or 403). Retrying with the same credentials does not help and may lock
	// the account; drivers never retry it.
	ErrBadCredentials = errors.New("BMC rejected the credentials")
	// ErrUnreachable: the BMC could not be dialled, the TLS handshake failed,
	// or it did not answer in time.
	ErrUnreachable = errors.New("BMC unreachable")
	// ErrUnsupported: the BMC lacks the resource or action (HTTP 404, 405,
	// 501, a missing action or an unlisted allowable value).
	ErrUnsupported = errors.New("operation not supported by the BMC")
	// ErrBMC: any other failure reported by the BMC or an answer that makes
	// no sense (garbage JSON, a state that did not change).
	ErrBMC = errors.New("BMC error")
)

// Retryable reports whether an operation that failed with err may succeed
// if tried again later with the same credentials: an unreachable BMC or a
// BMC error may be transient; bad credentials, unsupported operations and
// bad addresses are not (the operator has to change something first).
func Retryable(err error) bool {
	if err == nil || errors.Is(err, ErrBadCredentials) || errors.Is(err, ErrUnsupported) ||
		errors.Is(err, ErrBadAddress) {
		return false
	}
	return errors.Is(err, ErrUnreachable) || errors.Is(err, ErrBMC)
}
