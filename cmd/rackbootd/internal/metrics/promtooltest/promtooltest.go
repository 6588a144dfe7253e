// Package promtooltest runs Prometheus's promtool from tests: it checks
// an exposition (promtool check metrics) and rule files (check rules,
// test rules). A test skips when promtool is missing, except under CI
// (CI set), where testbed/install-deps.sh installs Debian's prometheus
// package and a missing promtool is a failure.
package promtooltest

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Path returns promtool's path, skipping t (failing it under CI) when it
// is not installed.
func Path(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("promtool is missing under CI (testbed/install-deps.sh installs Debian's prometheus): %v", err)
		}
		t.Skipf("promtool not installed (Debian package prometheus): %v", err)
	}
	return p
}

// CheckMetrics fails t unless promtool check metrics finds no problem in
// the exposition text.
func CheckMetrics(t testing.TB, exposition string) {
	t.Helper()
	cmd := exec.Command(Path(t), "check", "metrics")
	cmd.Stdin = strings.NewReader(exposition)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || strings.TrimSpace(out.String()) != "" {
		t.Errorf("promtool check metrics: %v\n%s", err, out.String())
	}
}

// Run runs promtool with args and fails t when it fails.
func Run(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command(Path(t), args...).CombinedOutput()
	if err != nil {
		t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
