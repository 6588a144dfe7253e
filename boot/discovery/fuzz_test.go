package discovery

import (
	"errors"
	"testing"

	"github.com/rackboot/rackboot/boot/ignition"
)

// FuzzOverride feeds arbitrary overrides (user input from the API) to
// Build: it must not panic, must return valid Ignition or a typed error,
// and no error may show a secret.
func FuzzOverride(f *testing.F) {
	for _, s := range []string{
		"",
		"{",
		`{"ignition":{"version":"3.5.0"}}`,
		`{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,hi"}}]}}`,
		`{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/etc/rackboot/agent.conf","contents":{"source":"data:,x"}}]}}`,
		`{"ignition":{"version":"3.5.0"},"storage":{"directories":[{"path":"/etc/rackboot/agent.conf"}]}}`,
		`{"ignition":{"version":"3.5.0"},"systemd":{"units":[{"name":"rackboot-agent.service","mask":true}]}}`,
		`{"ignition":{"version":"3.5.0"},"passwd":{"users":[{"name":"core","passwordHash":"x"}]}}`,
		`{"ignition":{"version":"2.2.0"}}`,
		`{"ignition":{"version":"3.5.0"},"storage":{"links":[{"path":"/root/.docker/config.json","target":"/tmp/x"}]}}`,
	} {
		f.Add(s)
	}
	base := fullInput()
	f.Fuzz(func(t *testing.T, override string) {
		in := base
		in.IgnitionOverride = override
		raw, err := Build(in)
		if err != nil {
			if !errors.Is(err, ErrInvalidOverride) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("untyped error: %v", err)
			}
			assertNoSecrets(t, err, in)
			return
		}
		if _, err := ignition.Parse(raw); err != nil {
			t.Fatalf("Build returned a config Ignition refuses: %v", err)
		}
		if len(raw) > DefaultMaxSize {
			t.Fatalf("output %d bytes over the limit", len(raw))
		}
	})
}
