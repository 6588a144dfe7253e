package validation

import (
	"encoding/json"
	"fmt"
)

// Status is the outcome of one validation.
type Status string

// Validation statuses, as upstream spells them.
const (
	StatusSuccess  Status = "success"
	StatusFailure  Status = "failure"
	StatusPending  Status = "pending"
	StatusError    Status = "error"
	StatusDisabled Status = "disabled"
)

// ID is a validation id, as upstream spells it.
type ID string

// Category groups validations in validations_info.
type Category string

// Categories of validations_info.
const (
	CategoryHardware      Category = "hardware"
	CategoryNetwork       Category = "network"
	CategoryOperators     Category = "operators"
	CategoryHostsData     Category = "hosts-data"
	CategoryConfiguration Category = "configuration"
)

// Result is the outcome of one validation. Passed is false only for
// results that block: failure, pending and error.
type Result struct {
	ID       ID       `json:"id"`
	Status   Status   `json:"status"`
	Message  string   `json:"message"`
	Category Category `json:"-"`
	// Hidden marks upstream's "success-suppress-output": the validation
	// passes but does not appear in validations_info (for example the
	// cluster-only validations of a host that is not bound to a cluster).
	Hidden bool `json:"-"`
}

// Passed says whether the result lets the host or cluster go on.
func (r Result) Passed() bool {
	return r.Status == StatusSuccess || r.Status == StatusDisabled
}

// Results is an ordered list of validation results.
type Results []Result

// Get returns the result with the given id.
func (rs Results) Get(id ID) (Result, bool) {
	for _, r := range rs {
		if r.ID == id {
			return r, true
		}
	}
	return Result{}, false
}

// Passed says whether every listed validation passed. A validation that was
// not computed counts as passed (upstream treats a missing condition so).
func (rs Results) Passed(ids ...ID) bool {
	for _, id := range ids {
		if r, ok := rs.Get(id); ok && !r.Passed() {
			return false
		}
	}
	return true
}

// Disable marks the listed validations disabled, with upstream's message,
// as its DISABLED_HOST_VALIDATIONS setting does.
func (rs Results) Disable(ids ...ID) Results {
	out := make(Results, len(rs))
	copy(out, rs)
	for i := range out {
		for _, id := range ids {
			if out[i].ID == id {
				out[i].Status = StatusDisabled
				out[i].Message = "Validation disabled by configuration"
				out[i].Hidden = false
			}
		}
	}
	return out
}

// failureMessages are the messages of failed validations, the text upstream
// puts in place of $FAILING_VALIDATIONS.
func (rs Results) failureMessages() []string {
	var msgs []string
	for _, r := range rs {
		if r.Status == StatusFailure && !r.Hidden {
			msgs = append(msgs, r.Message)
		}
	}
	return msgs
}

// ValidationsInfo is upstream's validations_info document: results grouped
// by category, each group in evaluation order, hidden results left out.
type ValidationsInfo map[Category][]Result

// Info groups the results for validations_info.
func (rs Results) Info() ValidationsInfo {
	info := ValidationsInfo{}
	for _, r := range rs {
		if r.Hidden {
			continue
		}
		info[r.Category] = append(info[r.Category], r)
	}
	return info
}

// JSON encodes validations_info as upstream does (categories in key order).
func (rs Results) JSON() (string, error) {
	b, err := json.Marshal(rs.Info())
	if err != nil {
		return "", fmt.Errorf("validation: encode validations_info: %w", err)
	}
	return string(b), nil
}

// ParseInfo decodes a validations_info document.
func ParseInfo(s string) (ValidationsInfo, error) {
	var info ValidationsInfo
	if err := json.Unmarshal([]byte(s), &info); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInfo, err)
	}
	return info, nil
}

func result(id ID, st Status, format string, args ...any) Result {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return Result{ID: id, Status: st, Message: msg, Category: categoryOf(id)}
}

func hidden(id ID, msg string) Result {
	r := result(id, StatusSuccess, "%s", msg)
	r.Hidden = true
	return r
}
