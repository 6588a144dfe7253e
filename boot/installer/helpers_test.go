package installer

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v35 "github.com/coreos/ignition/v2/config/v3_5"
	"github.com/coreos/ignition/v2/config/v3_5/types"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name (rewritten with -update).
// Ignition JSON is stored indented so that a diff is readable.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	if strings.HasSuffix(name, ".json") {
		var buf bytes.Buffer
		if err := json.Indent(&buf, got, "", "  "); err != nil {
			t.Fatalf("%s: output is not JSON: %v", name, err)
		}
		buf.WriteByte('\n')
		got = buf.Bytes()
	}
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

// mustParse parses raw as a spec 3.5.0 config (what HostIgnition and
// Merge write), failing the test otherwise.
func mustParse(t *testing.T, raw []byte) types.Config {
	t.Helper()
	cfg, rpt, err := v35.Parse(raw)
	if err != nil {
		t.Fatalf("output is not valid Ignition 3.5: %v %s\n%s", err, rpt.String(), raw)
	}
	if cfg.Ignition.Version != "3.5.0" {
		t.Fatalf("version %q, want 3.5.0", cfg.Ignition.Version)
	}
	return cfg
}

// fileOf returns the decoded contents and mode of the file at path in cfg.
func fileOf(t *testing.T, cfg types.Config, path string) (string, int, bool) {
	t.Helper()
	for _, f := range cfg.Storage.Files {
		if f.Path != path {
			continue
		}
		src := ""
		if f.Contents.Source != nil {
			src = *f.Contents.Source
		}
		data, ok := strings.CutPrefix(src, "data:,")
		if !ok {
			t.Fatalf("%s: source %q is not a plain data URL", path, src)
		}
		text, err := url.PathUnescape(data)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		mode := -1
		if f.Mode != nil {
			mode = *f.Mode
		}
		return text, mode, true
	}
	return "", 0, false
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
