package kargs

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/ipxe"
)

// Operations (upstream's names).
const (
	Append  = "append"
	Replace = "replace"
	Delete  = "delete"
)

// Limits: upstream's ISO kargs area holds 1 KiB or so in all; one
// argument and the list are bounded well above any real use.
const (
	MaxArgs     = 64
	MaxValueLen = 256
)

// ErrBad is wrapped by every error of Check and Apply.
var ErrBad = errors.New("bad kernel argument")

// Arg is one operation on the command line. Append adds Value at the end;
// Replace sets key=value in place of every argument of that key (appending
// it when there is none); Delete removes every argument of key Value, or
// only the arguments equal to Value when it holds '='.
type Arg struct {
	Operation string `json:"operation"`
	Value     string `json:"value"`
}

// Check checks a list of operations; the error names the first bad one.
func Check(args []Arg) error {
	if len(args) > MaxArgs {
		return fmt.Errorf("%w: %d kernel arguments, at most %d", ErrBad, len(args), MaxArgs)
	}
	for i, a := range args {
		if err := checkOne(a); err != nil {
			return fmt.Errorf("%w: kernel_arguments[%d]: %s", ErrBad, i, err)
		}
	}
	return nil
}

func checkOne(a Arg) error {
	switch a.Operation {
	case Append, Replace, Delete:
	default:
		return fmt.Errorf("operation %.32q is not %s, %s or %s", a.Operation, Append, Replace, Delete)
	}
	v := a.Value
	switch {
	case v == "":
		return errors.New("empty value")
	case len(v) > MaxValueLen:
		return fmt.Errorf("value of %d bytes, at most %d", len(v), MaxValueLen)
	case strings.HasPrefix(v, "="):
		return fmt.Errorf("value %.64q has no key", v)
	case strings.ContainsRune(v, ' '):
		return fmt.Errorf("value %.64q is more than one argument (it holds a space)", v)
	}
	if err := ipxe.CheckKernelArgs(v); err != nil {
		return fmt.Errorf("value %.64q: only letters, digits and . _ , : / = + @ %% - ~ are allowed", v)
	}
	if a.Operation == Replace && !strings.Contains(v, "=") {
		return fmt.Errorf("replace value %.64q is not key=value", v)
	}
	return nil
}

// key is the part of an argument before '='.
func key(arg string) string {
	k, _, _ := strings.Cut(arg, "=")
	return k
}

// Apply applies args, in order, to the space-separated cmdline (after
// checking them) and returns the new command line.
func Apply(cmdline string, args []Arg) (string, error) {
	if err := Check(args); err != nil {
		return "", err
	}
	return edit(cmdline, args), nil
}

// edit applies args, checked or not, to cmdline.
func edit(cmdline string, args []Arg) string {
	out := strings.Fields(cmdline)
	for _, a := range args {
		switch a.Operation {
		case Append:
			out = append(out, a.Value)
		case Replace:
			out = replace(out, a.Value)
		case Delete:
			out = slices.DeleteFunc(out, func(x string) bool {
				if strings.Contains(a.Value, "=") {
					return x == a.Value
				}
				return key(x) == a.Value
			})
		}
	}
	return strings.Join(out, " ")
}

// replace puts kv in place of the first argument of its key, drops the
// others of that key, and appends kv when there is none.
func replace(args []string, kv string) []string {
	k, done := key(kv), false
	out := args[:0:0]
	for _, x := range args {
		switch {
		case key(x) != k:
			out = append(out, x)
		case !done:
			out, done = append(out, kv), true
		}
	}
	if !done {
		out = append(out, kv)
	}
	return out
}
