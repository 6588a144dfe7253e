package isoimage

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestConfigsGolden pins the generated bootloader configs and JSON files.
func TestConfigsGolden(t *testing.T) {
	files, err := treeFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{isolinuxCfg, grubCfg, "coreos/igninfo.json", "coreos/kargs.json"} {
		golden := filepath.Join("testdata", filepath.Base(name))
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, files[name], 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update)", err)
		}
		if string(want) != string(files[name]) {
			t.Errorf("%s differs from %s:\n%s", name, golden, files[name])
		}
	}
	if got := string(files["boot/grub/grub.cfg"]); len(got) == 0 {
		t.Fatal("empty grub.cfg")
	}
}
