package ipxe

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnsafe is wrapped by every error for a value that must not reach an iPXE
// script or a kernel command line.
var ErrUnsafe = errors.New("unsafe for an iPXE script")

const maxHostname = 253

// CheckHostname accepts an RFC 1123 host name: dot-separated labels of
// letters, digits and hyphens, each 1–63 characters, not starting or ending
// with a hyphen, 253 characters in all. Anything else could carry iPXE syntax
// (spaces, newlines, ${...}, ||) into a script.
func CheckHostname(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty hostname", ErrUnsafe)
	}
	if len(name) > maxHostname {
		return fmt.Errorf("%w: hostname is %d characters, the limit is %d", ErrUnsafe, len(name), maxHostname)
	}
	for _, label := range strings.Split(name, ".") {
		if err := checkLabel(label); err != nil {
			return fmt.Errorf("%w: hostname %q: %s", ErrUnsafe, name, err)
		}
	}
	return nil
}

func checkLabel(label string) error {
	switch {
	case label == "":
		return errors.New("empty label")
	case len(label) > 63:
		return errors.New("a label is longer than 63 characters")
	case label[0] == '-' || label[len(label)-1] == '-':
		return errors.New("a label starts or ends with '-'")
	}
	for _, c := range label {
		if !isAlnum(c) && c != '-' {
			return fmt.Errorf("character %q is not a letter, digit or '-'", c)
		}
	}
	return nil
}

// CheckKernelArgs accepts a kernel command line made of space-separated
// arguments whose characters are letters, digits and . _ , : / = + @ % - ~.
// It rejects newlines, quotes, backslashes and the iPXE operators
// ($, |, &, ;, #, <, >) so that a value cannot end the kernel line or expand
// iPXE settings.
func CheckKernelArgs(cmdline string) error {
	for i, c := range cmdline {
		if c == ' ' || isAlnum(c) || strings.ContainsRune("._,:/=+@%-~", c) {
			continue
		}
		return fmt.Errorf("%w: kernel arguments %q: character %q at offset %d is not allowed", ErrUnsafe, cmdline, c, i)
	}
	return nil
}

func isAlnum(c rune) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
