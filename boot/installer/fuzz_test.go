package installer

import (
	"errors"
	"strings"
	"testing"
)

var overrideSeeds = []string{
	"",
	"{",
	"null",
	`{"ignition":{"version":"3.5.0"}}`,
	`{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,hi"}}]}}`,
	`{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/etc/rackboot/firstboot.token","contents":{"source":"data:,x"}}]}}`,
	`{"ignition":{"version":"3.5.0"},"storage":{"directories":[{"path":"/etc/hostname"}]}}`,
	`{"ignition":{"version":"3.5.0"},"storage":{"links":[{"path":"/etc/rackboot","target":"/tmp"}]}}`,
	`{"ignition":{"version":"3.5.0"},"systemd":{"units":[{"name":"rackboot-firstboot.service","mask":true}]}}`,
	`{"ignition":{"version":"3.5.0"},"passwd":{"users":[{"name":"core","passwordHash":"x"}]}}`,
	`{"ignition":{"version":"2.2.0"}}`,
	`{"ignition":{"version":"3.0.0"},"storage":{"files":[{"path":"x"}]}}`,
}

// FuzzHostIgnition feeds arbitrary overrides (user input from the API) to
// HostIgnition: no panic, valid Ignition or a typed error, and never the
// token in an error.
func FuzzHostIgnition(f *testing.F) {
	for _, s := range overrideSeeds {
		f.Add(s)
	}
	role := []byte(`{"ignition":{"version":"3.2.0","config":{"merge":[{"source":"https://api-int.x:22623/config/worker"}]}}}`)
	f.Fuzz(func(t *testing.T, override string) {
		p := testParams()
		p.IgnitionOverride = override
		out, err := HostIgnition(role, p)
		if err != nil {
			if !errors.Is(err, ErrInvalidOverride) {
				t.Fatalf("untyped error: %v", err)
			}
			if strings.Contains(err.Error(), testToken) {
				t.Fatalf("error shows the token: %v", err)
			}
			if ValidateOverride(override) == nil && !strings.Contains(err.Error(), "once merged") {
				t.Fatalf("override valid alone but refused: %v", err)
			}
			return
		}
		if verr := ValidateOverride(override); verr != nil {
			t.Fatalf("HostIgnition accepted an override ValidateOverride refuses: %v", verr)
		}
		mustParse(t, out)
	})
}

// FuzzMerge merges arbitrary configs over a valid one: no panic, and a
// result only when both inputs are valid.
func FuzzMerge(f *testing.F) {
	for _, s := range overrideSeeds {
		f.Add(s)
	}
	base := []byte(`{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/a/b","contents":{"source":"data:,x"}}]}}`)
	f.Fuzz(func(t *testing.T, add string) {
		out, err := Merge(base, []byte(add))
		if err != nil {
			return
		}
		if ValidateOverride(add) != nil {
			t.Fatalf("Merge accepted %q which ValidateOverride refuses", add)
		}
		mustParse(t, out)
		if _, err := Merge(out, out); err != nil {
			t.Fatalf("merging the result with itself: %v", err)
		}
	})
}
