package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"reflect"
	"strings"
	"testing"

	v35 "github.com/coreos/ignition/v2/config/v3_5"
)

// assertSameIgnition compares two Ignition configs as Ignition reads them:
// both are parsed (and translated to spec 3.5), so a config re-encoded with
// empty sections or a newer version still counts as the same.
func assertSameIgnition(t *testing.T, got, want []byte) {
	t.Helper()
	g, _, err := v35.ParseCompatibleVersion(got)
	if err != nil {
		t.Fatalf("config.ign on the console is not a valid Ignition config: %v\n%s", err, got)
	}
	w, _, err := v35.ParseCompatibleVersion(want)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(w)
		t.Errorf("config.ign differs from the profile's Ignition:\n got: %s\nwant: %s", gj, wj)
	}
}

// errNoFile is returned by fileContents for a path the config does not write.
var errNoFile = errors.New("no such file in the Ignition config")

// fileContents returns what an Ignition config writes to path (the last
// entry for it wins, as in Ignition), decoding its data URL.
func fileContents(ign []byte, path string) (string, error) {
	var cfg struct {
		Storage struct {
			Files []struct {
				Path     string `json:"path"`
				Contents struct {
					Source      *string `json:"source"`
					Compression *string `json:"compression"`
				} `json:"contents"`
			} `json:"files"`
		} `json:"storage"`
	}
	if err := json.Unmarshal(ign, &cfg); err != nil {
		return "", fmt.Errorf("config.ign is not JSON: %w", err)
	}
	found := false
	var out string
	for _, f := range cfg.Storage.Files {
		if f.Path != path {
			continue
		}
		found = true
		if f.Contents.Source == nil {
			out = ""
			continue
		}
		data, err := decodeDataURL(*f.Contents.Source)
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		if f.Contents.Compression != nil && *f.Contents.Compression == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				return "", fmt.Errorf("%s: %w", path, err)
			}
			if data, err = io.ReadAll(zr); err != nil {
				return "", fmt.Errorf("%s: %w", path, err)
			}
		}
		out = string(data)
	}
	if !found {
		return "", fmt.Errorf("%w: %s", errNoFile, path)
	}
	return out, nil
}

// decodeDataURL decodes an RFC 2397 data URL.
func decodeDataURL(s string) ([]byte, error) {
	rest, ok := strings.CutPrefix(s, "data:")
	if !ok {
		return nil, fmt.Errorf("source %q is not a data URL", s)
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, fmt.Errorf("data URL %q has no comma", s)
	}
	if strings.HasSuffix(meta, ";base64") {
		unesc, err := url.PathUnescape(data)
		if err != nil {
			return nil, err
		}
		return base64.StdEncoding.DecodeString(unesc)
	}
	unesc, err := url.PathUnescape(data)
	return []byte(unesc), err
}

func TestDecodeDataURL(t *testing.T) {
	for in, want := range map[string]string{
		"data:,master-0%0A":                 "master-0\n",
		"data:text/plain;base64,aGk=":       "hi",
		"data:text/plain;charset=utf-8,a+b": "a+b",
	} {
		got, err := decodeDataURL(in)
		if err != nil || string(got) != want {
			t.Errorf("decodeDataURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := decodeDataURL("https://example.invalid/x"); err == nil {
		t.Error("decodeDataURL accepted a non-data URL")
	}
}

func TestFileContents(t *testing.T) {
	ign := []byte(`{"storage":{"files":[{"path":"/etc/hostname","contents":{"source":"data:,old"}},{"path":"/etc/hostname","contents":{"source":"data:,master-0%0A"}}]}}`)
	got, err := fileContents(ign, "/etc/hostname")
	if err != nil || got != "master-0\n" {
		t.Errorf("fileContents = %q, %v", got, err)
	}
	if _, err := fileContents(ign, "/etc/motd"); !errors.Is(err, errNoFile) {
		t.Errorf("missing file: err = %v, want errNoFile", err)
	}
}
