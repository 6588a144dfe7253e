package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImageSetBaseISO: base_iso is resolved against the file's directory
// and must exist; it is optional.
func TestImageSetBaseISO(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"vmlinuz", "initrd.img", "discovery.iso"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	doc := func(iso string) string {
		return `
[server]
advertise = "10.99.0.1"
[tftp]
enabled = false
[[profile]]
name = "discovery"
kernel = "vmlinuz"
initrd = "initrd.img"
[[image_set]]
name = "testbed"
profile = "discovery"
` + iso
	}
	path := filepath.Join(dir, "rackboot.toml")
	cfg, err := Parse(path, []byte(doc(`base_iso = "discovery.iso"`)), "/")
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.ImageSets[0].BaseISO; got != filepath.Join(dir, "discovery.iso") {
		t.Errorf("base_iso = %q", got)
	}
	if cfg, err = Parse(path, []byte(doc("")), "/"); err != nil || cfg.ImageSets[0].BaseISO != "" {
		t.Errorf("without base_iso: %v %+v", err, cfg)
	}
	_, err = Parse(path, []byte(doc(`base_iso = "missing.iso"`)), "/")
	if err == nil || !strings.Contains(err.Error(), "base_iso") {
		t.Errorf("missing base ISO: %v", err)
	}
}
