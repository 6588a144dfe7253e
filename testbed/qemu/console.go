package qemu

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"time"
)

// pollInterval is how often WaitFor re-reads the console file.
const pollInterval = 200 * time.Millisecond

// Console returns the serial console so far, without carriage returns.
func (vm *VM) Console() string {
	return ReadConsole(vm.ConsolePath)
}

// ReadConsole reads a console log file, without carriage returns. A missing
// file reads as empty (QEMU has not created it yet).
func ReadConsole(path string) string {
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("<reading %s: %v>", path, err)
	}
	return strings.ReplaceAll(string(b), "\r", "")
}

// ConsoleTail returns the last n lines of the console, for failure reports.
func (vm *VM) ConsoleTail(n int) string {
	return Tail(vm.Console(), n)
}

// Tail returns the last n lines of s.
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// WaitFor polls the console until re matches it and returns the match and
// its submatches. It fails with ErrExited when QEMU exits first (after a
// last look at the console), and with ErrNoMatch wrapping ctx's error when
// ctx ends; give ctx the deadline.
func (vm *VM) WaitFor(ctx context.Context, re *regexp.Regexp) ([]string, error) {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		if m := re.FindStringSubmatch(vm.Console()); m != nil {
			return m, nil
		}
		select {
		case <-vm.done:
			if m := re.FindStringSubmatch(vm.Console()); m != nil {
				return m, nil
			}
			return nil, fmt.Errorf("%w before the console matched %q: %v", ErrExited, re, vm.exitErr())
		case <-ctx.Done():
			return nil, fmt.Errorf("%w %q: %w", ErrNoMatch, re, ctx.Err())
		case <-t.C:
		}
	}
}
