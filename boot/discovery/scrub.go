package discovery

import (
	"encoding/json"
	"slices"
	"strings"
)

// minSecretLen is the shortest secret scrubbed: shorter strings would
// match ordinary words of the message.
const minSecretLen = 4

// scrubbedError keeps the chain of err (errors.Is still works) but shows
// a text from which every secret has been removed.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// scrub returns err with every secret (and the string values inside a
// JSON secret, such as a pull secret's auths) replaced by "[redacted]".
func scrub(err error, secrets []string) error {
	msg := err.Error()
	clean := msg
	for _, s := range expandSecrets(secrets) {
		if len(s) >= minSecretLen {
			clean = strings.ReplaceAll(clean, s, "[redacted]")
		}
	}
	if clean == msg {
		return err
	}
	return &scrubbedError{msg: clean, err: err}
}

// expandSecrets adds the string leaves of JSON secrets, longest first so
// that a secret containing another is removed whole.
func expandSecrets(secrets []string) []string {
	out := append([]string(nil), secrets...)
	for _, s := range secrets {
		var v any
		if json.Unmarshal([]byte(s), &v) == nil {
			out = append(out, jsonStrings(v)...)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

func jsonStrings(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case map[string]any:
		var out []string
		for _, x := range t {
			out = append(out, jsonStrings(x)...)
		}
		return out
	case []any:
		var out []string
		for _, x := range t {
			out = append(out, jsonStrings(x)...)
		}
		return out
	}
	return nil
}
