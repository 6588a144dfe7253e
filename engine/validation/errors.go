package validation

import "errors"

// Sentinel errors of the package.
var (
	// ErrBadInfo: a validations_info document that does not decode.
	ErrBadInfo = errors.New("validation: malformed validations_info")
	// ErrBadThresholds: a Thresholds value with a negative or zero minimum.
	ErrBadThresholds = errors.New("validation: invalid thresholds")
)
