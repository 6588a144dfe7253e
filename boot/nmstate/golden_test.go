package nmstate

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The cases the issue asks for; each is a directory under testdata/.
var requiredCases = []string{
	"ethernet-static-ipv4", "ethernet-dhcp", "dual-stack", "bond-active-backup-with-vlan",
	"dns-and-routes", "disabled-interface",
}

func TestGoldenNMStateConfig(t *testing.T) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		dir := filepath.Join("testdata", e.Name())
		if _, err := os.Stat(filepath.Join(dir, "input.yaml")); err != nil {
			continue
		}
		seen[e.Name()] = true
		t.Run(e.Name(), func(t *testing.T) {
			input, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			files, err := ConvertNMStateConfig(input)
			if err != nil {
				t.Fatal(err)
			}
			again, err := ConvertNMStateConfig(input)
			if err != nil || !sameFiles(files, again) {
				t.Fatalf("second conversion differs (err %v)", err)
			}
			checkKeyfiles(t, files)
			checkGolden(t, dir, files)
		})
	}
	for _, c := range requiredCases {
		if !seen[c] {
			t.Errorf("testdata/%s/input.yaml is missing", c)
		}
	}
}

func TestGoldenHosts(t *testing.T) {
	dir := filepath.Join("testdata", "hosts")
	input, err := os.ReadFile(filepath.Join(dir, "input.json"))
	if err != nil {
		t.Fatal(err)
	}
	var hosts []HostStaticNetworkConfig
	if err := json.Unmarshal(input, &hosts); err != nil {
		t.Fatal(err)
	}
	files, err := ConvertHosts(hosts)
	if err != nil {
		t.Fatal(err)
	}
	checkKeyfiles(t, files)
	checkGolden(t, dir, files)
}

func sameFiles(a, b []File) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}

// checkGolden compares files with every file under dir except input.*.
func checkGolden(t *testing.T, dir string, files []File) {
	t.Helper()
	if *update {
		for _, name := range goldenNames(t, dir) {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range files {
			p := filepath.Join(dir, filepath.FromSlash(f.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Name)
		want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Name)))
		if err != nil {
			t.Errorf("%v (run go test -update to create it)", err)
			continue
		}
		if !bytes.Equal(f.Data, want) {
			t.Errorf("%s differs from %s:\n--- got\n%s--- want\n%s", f.Name, dir, f.Data, want)
		}
	}
	if want := goldenNames(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("files: got %v, want %v", got, want)
	}
}

func goldenNames(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), "input.") {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		names = append(names, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	return names
}

// checkKeyfiles checks the shape NetworkManager needs: sections once each,
// [connection] first with id matching the file name, keys once per section,
// and mac_interface.ini lines of the form mac=name.
func checkKeyfiles(t *testing.T, files []File) {
	t.Helper()
	for _, f := range files {
		if err := keyfileShape(f); err != nil {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
}
