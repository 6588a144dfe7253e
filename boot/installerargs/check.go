package installerargs

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrInvalid: the arguments are not ones a host's installation takes.
var ErrInvalid = errors.New("installer_args")

// flags are the coreos-installer flags allowed, and whether each takes a
// value (as upstream's installer passes them on).
var flags = map[string]bool{
	"--append-karg": true, "--delete-karg": true, "--copy-network": false,
	"--network-dir": true, "--save-partlabel": true, "--save-partindex": true,
}

// Allowed lists the allowed flags, sorted.
func Allowed() []string {
	out := make([]string, 0, len(flags))
	for f := range flags {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Check reports whether args are allowed: each an allowed flag, with its
// value as the next argument or after "=" when it takes one, and no
// control character anywhere. The error wraps ErrInvalid and names the
// argument.
func Check(args []string) error {
	for i := 0; i < len(args); i++ {
		if hasControl(args[i]) {
			return fmt.Errorf("%w: argument %d holds a control character", ErrInvalid, i+1)
		}
		flag, _, inline := strings.Cut(args[i], "=")
		takes, ok := flags[flag]
		switch {
		case !ok:
			return fmt.Errorf("%w: %q is not an allowed coreos-installer flag (allowed: %s)", ErrInvalid, clip(flag), strings.Join(Allowed(), ", "))
		case takes && !inline:
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
				return fmt.Errorf("%w: %s needs a value", ErrInvalid, flag)
			}
			i++
			if hasControl(args[i]) {
				return fmt.Errorf("%w: argument %d holds a control character", ErrInvalid, i+1)
			}
		case !takes && inline:
			return fmt.Errorf("%w: %s takes no value", ErrInvalid, flag)
		}
	}
	return nil
}

// hasControl reports whether s holds a control character.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// TakesValue reports whether flag is an allowed flag that takes a value.
func TakesValue(flag string) bool { return flags[flag] }
