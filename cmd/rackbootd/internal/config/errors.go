package config

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrInvalid is wrapped by every error about the contents of a configuration
// file.
var ErrInvalid = errors.New("invalid configuration")

// Pos is a 1-based line and column in a configuration file.
type Pos struct {
	Line, Col int
}

// Error is one problem at one place in a configuration file.
type Error struct {
	File string
	Pos
	Msg string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Unwrap makes every Error match ErrInvalid.
func (e *Error) Unwrap() error { return ErrInvalid }

// Errors is every problem found in one file, in the order of the file.
type Errors []*Error

// Error prints one problem a line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives errors.Is and errors.As every problem.
func (es Errors) Unwrap() []error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errs
}

// report collects errors for one file.
type report struct {
	file string
	errs Errors
}

func (r *report) add(p Pos, format string, args ...any) {
	r.errs = append(r.errs, &Error{File: r.file, Pos: p, Msg: fmt.Sprintf(format, args...)})
}

// err returns the collected errors sorted by position, or nil.
func (r *report) err() error {
	if len(r.errs) == 0 {
		return nil
	}
	sortErrors(r.errs)
	return r.errs
}

// sortErrors orders errors by position, keeping the order found for errors
// at the same position.
func sortErrors(es Errors) {
	slices.SortStableFunc(es, func(a, b *Error) int {
		if c := cmp.Compare(a.Line, b.Line); c != 0 {
			return c
		}
		return cmp.Compare(a.Col, b.Col)
	})
}
