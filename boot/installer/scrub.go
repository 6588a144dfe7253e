package installer

import (
	"encoding/json"
	"slices"
	"strings"
)

// minSecretLen is the shortest secret scrubbed: shorter strings would match
// ordinary words of a message.
const minSecretLen = 4

// Redacted replaces every secret in error text.
const Redacted = "[redacted]"

// scrubbedError keeps the chain of err (errors.Is still works) but shows a
// text from which every secret has been removed.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// scrub returns err with every secret replaced by Redacted.
func scrub(err error, secrets []string) error {
	msg := err.Error()
	clean := scrubText(msg, secrets)
	if clean == msg {
		return err
	}
	return &scrubbedError{msg: clean, err: err}
}

// scrubText replaces in s every secret, and every string leaf of a JSON
// secret (a pull secret's auths), longest first.
func scrubText(s string, secrets []string) string {
	all := append([]string(nil), secrets...)
	for _, sec := range secrets {
		var v any
		if json.Unmarshal([]byte(sec), &v) == nil {
			all = append(all, jsonStrings(v)...)
		}
	}
	slices.SortStableFunc(all, func(a, b string) int { return len(b) - len(a) })
	for _, sec := range all {
		if len(sec) >= minSecretLen {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	return s
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
