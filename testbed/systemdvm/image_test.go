package systemdvm

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMirrorIn reads the Debian archive out of both apt source formats,
// skipping the security archive and third-party repositories.
func TestMirrorIn(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ text, want string }{
		"debian.sources": {"Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n\nTypes: deb\nURIs: http://mirror.example/debian\nSuites: bookworm\n", "http://mirror.example/debian"},
		"old.list":       {"deb [arch=amd64] http://other.example/debian bookworm main\ndeb http://mirror.example/debian/ bookworm main\n", "http://mirror.example/debian/"},
		"vendor.list":    {"deb https://packages.example/apt stable main\n", ""},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := mirrorIn(path); got != tc.want {
			t.Errorf("%s: mirror %q, want %q", name, got, tc.want)
		}
	}
	if got := mirrorIn(filepath.Join(dir, "missing.list")); got != "" {
		t.Errorf("a missing file gives %q", got)
	}
}
