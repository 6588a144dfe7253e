// Package redact removes secrets (pull secrets, tokens) from error text
// before it reaches a log, an event or an API answer. A secret that is a
// JSON document (a pull secret) is removed together with each of its
// string values, so a parser quoting a fragment of it leaks nothing.
package redact
