package installer

import (
	"errors"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/boot/ignition"
)

func TestMerge(t *testing.T) {
	base := `{"ignition":{"version":"3.2.0"},"storage":{"files":[` +
		`{"path":"/etc/a","contents":{"source":"data:,base-a"}},{"path":"/etc/b","contents":{"source":"data:,base-b"}}]},` +
		`"systemd":{"units":[{"name":"one.service","enabled":true,"contents":"[Service]\nExecStart=/bin/true\n"}]},` +
		`"passwd":{"users":[{"name":"core","sshAuthorizedKeys":["ssh-ed25519 AAAA base"]}]}}`
	add := `{"ignition":{"version":"3.5.0"},"storage":{"files":[` +
		`{"path":"/etc/b","overwrite":true,"contents":{"source":"data:,add-b"}},{"path":"/etc/c","contents":{"source":"data:,add-c"}}]},` +
		`"systemd":{"units":[{"name":"two.service","enabled":true,"contents":"[Service]\nExecStart=/bin/true\n"},{"name":"one.service","mask":true}]},` +
		`"passwd":{"users":[{"name":"core","passwordHash":"$6$x"},{"name":"admin"}]}}`
	out, err := Merge([]byte(base), []byte(add))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "merge.json", out)
	cfg := mustParse(t, out)
	for path, want := range map[string]string{"/etc/a": "base-a", "/etc/b": "add-b", "/etc/c": "add-c"} {
		if got, _, ok := fileOf(t, cfg, path); !ok || got != want {
			t.Errorf("%s = %q (%v), want %q", path, got, ok, want)
		}
	}
	if len(cfg.Storage.Files) != 3 {
		t.Errorf("%d files, want 3 (b replaced by path)", len(cfg.Storage.Files))
	}
	units := map[string]bool{}
	for _, u := range cfg.Systemd.Units {
		units[u.Name] = u.Mask != nil && *u.Mask
	}
	if len(units) != 2 || !units["one.service"] {
		t.Errorf("units %v, want one.service (masked by add) and two.service", units)
	}
	if len(cfg.Passwd.Users) != 2 || cfg.Passwd.Users[0].PasswordHash == nil || len(cfg.Passwd.Users[0].SSHAuthorizedKeys) != 1 {
		t.Errorf("users %+v, want core merged (key and hash) and admin", cfg.Passwd.Users)
	}
}

func TestMergeInvalid(t *testing.T) {
	ok := []byte(`{"ignition":{"version":"3.5.0"}}`)
	for _, tc := range []struct {
		name      string
		base, add []byte
		text      string
	}{
		{"base not JSON", []byte("nope"), ok, "base config"},
		{"add spec 2", ok, []byte(`{"ignition":{"version":"2.2.0"}}`), "added config"},
		{"add empty", ok, nil, "added config"},
		{"merged link over file", []byte(`{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/etc/x/y"}]}}`),
			[]byte(`{"ignition":{"version":"3.5.0"},"storage":{"links":[{"path":"/etc/x","target":"/tmp"}]}}`), "merged config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Merge(tc.base, tc.add)
			if !errors.Is(err, ignition.ErrInvalid) || out != nil || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("Merge = %d bytes, %v; want ErrInvalid saying %q", len(out), err, tc.text)
			}
		})
	}
}

func TestValidateOverride(t *testing.T) {
	for _, s := range []string{
		"",
		`{"ignition":{"version":"3.0.0"}}`,
		`{"ignition":{"version":"3.3.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,hi"}}]}}`,
		`{"ignition":{"version":"3.5.0"},"systemd":{"units":[{"name":"x.service","mask":true}]}}`,
	} {
		if err := ValidateOverride(s); err != nil {
			t.Errorf("ValidateOverride(%s) = %v", s, err)
		}
	}
	for _, tc := range []struct{ in, text string }{
		{"{", "unexpected end of JSON input"},
		{`{"ignition":{"version":"2.2.0"}}`, "unsupported config version"},
		{`{"ignition":{"version":"3.6.0-experimental"}}`, "unsupported config version"},
		{`{"storage":{}}`, "invalid config version"},
		{`{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"x"}]}}`, "path not absolute"},
		{`{"ignition":{"version":"3.5.0"},"systemd":{"units":[{"name":"x.service","contents":"[Service\n"}]}}`, "invalid unit content"},
		{`{"ignition":{"version":"3.5.0"}}` + strings.Repeat(" ", MaxOverrideSize), "limit"},
	} {
		err := ValidateOverride(tc.in)
		if !errors.Is(err, ErrInvalidOverride) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("ValidateOverride(%.60s) = %v; want ErrInvalidOverride saying %q", tc.in, err, tc.text)
		}
	}
}
