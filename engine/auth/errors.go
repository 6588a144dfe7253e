package auth

import (
	"errors"
	"net/http"
)

var (
	// ErrNoCredentials: the request carries no token at all.
	ErrNoCredentials = errors.New("no credentials")
	// ErrInvalidToken: a token that is malformed, badly signed, of a
	// refused algorithm, not valid yet, or missing its scope claim.
	ErrInvalidToken = errors.New("invalid token")
	// ErrExpiredToken: a well-signed token past its expiry.
	ErrExpiredToken = errors.New("token expired")
	// ErrUnknownKey: a token naming a key the ring does not hold (never
	// known, or retired).
	ErrUnknownKey = errors.New("token signed by an unknown or retired key")
	// ErrAmbiguousCredentials: a request carrying different tokens in
	// different places.
	ErrAmbiguousCredentials = errors.New("ambiguous credentials")
	// ErrForbidden: a valid principal asking for something outside its scope.
	ErrForbidden = errors.New("forbidden")
	// ErrInsecureTokenFile: the admin token file is readable by others, not
	// a regular file, or empty.
	ErrInsecureTokenFile = errors.New("insecure admin token file")
	// ErrKeyRing: a key ring that cannot be used (bad encoding, no active
	// key, retiring the active key).
	ErrKeyRing = errors.New("key ring")
)

// HTTPStatus is the status code for an error of this package: 403 for
// ErrForbidden, 401 for the other credential errors, 500 otherwise.
func HTTPStatus(err error) int {
	switch {
	case err == nil:
		return http.StatusOK
	case errors.Is(err, ErrForbidden):
		return http.StatusForbidden
	case errors.Is(err, ErrNoCredentials), errors.Is(err, ErrInvalidToken),
		errors.Is(err, ErrExpiredToken), errors.Is(err, ErrUnknownKey),
		errors.Is(err, ErrAmbiguousCredentials):
		return http.StatusUnauthorized
	default:
		return http.StatusInternalServerError
	}
}
