package ignition

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v35 "github.com/coreos/ignition/v2/config/v3_5"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// hostnameFile returns the contents source and mode of /etc/hostname in raw.
func hostnameFile(t *testing.T, raw []byte) (string, int, bool) {
	t.Helper()
	cfg, _, err := v35.Parse(raw)
	if err != nil {
		t.Fatalf("output does not parse as Ignition 3.5: %v\n%s", err, raw)
	}
	for _, f := range cfg.Storage.Files {
		if f.Path == "/etc/hostname" {
			return *f.Contents.Source, *f.Mode, f.Overwrite != nil && *f.Overwrite
		}
	}
	return "", 0, false
}

func TestForHostGolden(t *testing.T) {
	for _, tc := range []struct{ in, host, golden string }{
		{"profile-3.5.ign", "master-0", "master-0.json"},
		{"profile-3.5.ign", "", "nohost.json"},
		{"profile-3.2.ign", "worker-1.rack1.example.com", "override.json"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			c, err := Load(filepath.Join("testdata", tc.in))
			if err != nil {
				t.Fatal(err)
			}
			out, err := c.ForHost(tc.host)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.golden, out)
			again, _ := c.ForHost(tc.host)
			if !bytes.Equal(out, again) {
				t.Error("ForHost is not deterministic")
			}
			src, mode, overwrite := hostnameFile(t, out)
			switch {
			case tc.host == "" && src != "":
				t.Errorf("no host, yet /etc/hostname = %q", src)
			case tc.host != "" && (src != "data:,"+tc.host+"%0A" || mode != 0o644 || !overwrite):
				t.Errorf("/etc/hostname = %q mode %o overwrite %v; want data:,%s%%0A 0644 true", src, mode, overwrite, tc.host)
			}
		})
	}
}

func TestForHostKeepsProfile(t *testing.T) {
	c, err := Load("testdata/profile-3.5.ign")
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.ForHost("master-0")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := v35.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Passwd.Users) != 1 || cfg.Passwd.Users[0].Name != "core" || len(cfg.Storage.Files) != 2 {
		t.Errorf("merged config lost the profile's parts: %s", out)
	}
}

func TestZeroConfig(t *testing.T) {
	var c Config
	out, err := c.ForHost("h1")
	if err != nil {
		t.Fatal(err)
	}
	if src, _, _ := hostnameFile(t, out); src != "data:,h1%0A" {
		t.Errorf("zero config for h1: %s", out)
	}
}

func TestParseRejects(t *testing.T) {
	for name, tc := range map[string]struct{ raw, want string }{
		"not json":        {"{\n\"ignition\": {\"version\": \"3.5.0\",}}", "line 2"},
		"empty":           {``, "empty"},
		"unknown version": {`{"ignition":{"version":"9.9.0"}}`, "version"},
		"spec 2":          {`{"ignition":{"version":"2.2.0"}}`, "version"},
		"relative path":   {`{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"etc/x"}]}}`, "absolute"},
		"bad data url":    {`{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/x","contents":{"source":"data:%%"}}]}}`, "$.storage.files.0.contents.source"},
	} {
		_, err := Parse([]byte(tc.raw))
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %q should be one line mentioning %q", name, err, tc.want)
		}
	}
}

func TestLoadNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.ign")
	if err := os.WriteFile(path, []byte(`{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"rel"}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), path) {
		t.Errorf("Load = %v, want ErrInvalid naming %s", err, path)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.ign")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestWarnings(t *testing.T) {
	c, err := Parse([]byte(`{"ignition":{"version":"3.5.0"},"storage":{"filez":[]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0], "filez") {
		t.Errorf("Warnings() = %q, want one naming filez", w)
	}
}
