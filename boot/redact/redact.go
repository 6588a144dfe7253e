package redact

import (
	"encoding/json"
	"slices"
	"strings"
)

// Redacted replaces every secret.
const Redacted = "[redacted]"

// minSecretLen is the shortest secret removed: shorter strings would match
// ordinary words of a message.
const minSecretLen = 4

// redactedError keeps the chain of err (errors.Is still works) but shows a
// text from which every secret has been removed.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Error returns err with every secret in its text replaced by Redacted;
// err itself when its text holds none.
func Error(err error, secrets []string) error {
	msg := err.Error()
	clean := Text(msg, secrets)
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

// Text replaces in s every secret, and every string value of a JSON
// secret, longest first so that a secret containing another goes whole.
func Text(s string, secrets []string) string {
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

// jsonStrings lists the string values anywhere in v.
func jsonStrings(v any) []string {
	var out []string
	switch t := v.(type) {
	case string:
		out = append(out, t)
	case map[string]any:
		for _, x := range t {
			out = append(out, jsonStrings(x)...)
		}
	case []any:
		for _, x := range t {
			out = append(out, jsonStrings(x)...)
		}
	}
	return out
}
