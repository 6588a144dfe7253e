package config

import (
	"os"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine/validation"
)

// TestImageSets: [[image_set]] tables come out in file order, the
// architecture defaults to x86_64, and thresholds are kept as the file's
// overrides (nil without a thresholds table).
func TestImageSets(t *testing.T) {
	doc := `
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
version = "4.17.0"
profile = "discovery"
thresholds = { profile = "testbed", master = { cpu_cores = 2, memory_mib = 1536, disk_gb = 15 } }

[[image_set]]
name = "upstream"
cpu_arch = "aarch64"
profile = "discovery"
`
	cfg, err := Parse("testdata/good/imagesets.toml", []byte(doc), "/")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.ImageSets) != 2 {
		t.Fatalf("image sets %+v", cfg.ImageSets)
	}
	tb, up := cfg.ImageSets[0], cfg.ImageSets[1]
	want := validation.Thresholds{Profile: "testbed", Master: validation.Requirements{CPUCores: 2, MemoryMiB: 1536, DiskGB: 15}}
	if tb.Name != "testbed" || tb.Version != "4.17.0" || tb.CPUArch != "x86_64" || tb.Profile != "discovery" ||
		tb.Thresholds == nil || *tb.Thresholds != want {
		t.Errorf("first image set %+v (thresholds %+v)", tb, tb.Thresholds)
	}
	if up.Name != "upstream" || up.CPUArch != "aarch64" || up.Thresholds != nil {
		t.Errorf("second image set %+v", up)
	}
	if cfg.Engine.Thresholds != validation.DefaultThresholds() {
		t.Errorf("[engine] thresholds changed by an image set: %+v", cfg.Engine.Thresholds)
	}
}

// TestPackagedImageSetExample: the commented [[image_set]] of the packaged
// configuration is valid once uncommented.
func TestPackagedImageSetExample(t *testing.T) {
	data, err := os.ReadFile("../../../../packaging/rackboot.toml")
	if err != nil {
		t.Fatal(err)
	}
	block := commentedTable(string(data), "[[image_set]]")
	if len(block) < 3 {
		t.Fatalf("no [[image_set]] example in the packaged configuration: %q", block)
	}
	doc := "[server]\nadvertise = \"127.0.0.1\"\n[tftp]\nenabled = false\n" +
		"[[profile]]\nname = \"discovery\"\nkernel = \"vmlinuz\"\ninitrd = \"initrd.img\"\n" + strings.Join(block, "\n") + "\n"
	cfg, err := Parse("testdata/good/example.toml", []byte(doc), "/")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.ImageSets) != 1 || cfg.ImageSets[0].Thresholds == nil || cfg.ImageSets[0].Thresholds.Profile != "testbed" {
		t.Errorf("image sets %+v", cfg.ImageSets)
	}
}

// commentedTable is the commented-out table header of data and the
// "# key = value" lines right after it, uncommented.
func commentedTable(data, header string) []string {
	var block []string
	for l := range strings.SplitSeq(data, "\n") {
		switch {
		case l == "# "+header:
			block = []string{header}
		case len(block) > 0 && strings.HasPrefix(l, "# ") && strings.Contains(l, " = "):
			block = append(block, strings.TrimPrefix(l, "# "))
		case len(block) > 0:
			return block
		}
	}
	return block
}
