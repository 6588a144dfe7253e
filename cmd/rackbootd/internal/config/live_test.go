package config

import (
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/boot/coreos/coreostest"
)

func liveHead(m *coreostest.Mirror) string {
	return fmt.Sprintf(`
[server]
advertise = "10.99.0.1"
agent_dir = %q
[tftp]
enabled = false
`, m.AgentDir)
}

// TestLiveImageSetFromStream: coreos_stream finds each architecture's live
// ISO and rootfs in the stream's directory, with the stream's sha256
// checked and recorded; the ISO is the image set's base ISO.
func TestLiveImageSetFromStream(t *testing.T) {
	m := coreostest.NewMirror(t)
	doc := liveHead(m) + fmt.Sprintf(`
[[image_set]]
name = "fcos"
coreos_stream = %q
kernel_arguments = "console=ttyS0,115200n8"

[[image_set]]
name = "fcos-arm"
cpu_arch = "arm64"
coreos_stream = %q
coreos_mirror = %q
`, m.Stream, m.Stream, m.Dir)
	cfg, err := Parse("rackboot.toml", []byte(doc), "/")
	if err != nil {
		t.Fatal(err)
	}
	for i, arch := range []string{"x86_64", "aarch64"} {
		is := cfg.ImageSets[i]
		l := is.Live
		if l == nil || l.Arch != arch || l.ISO != m.ISO[arch] || l.Rootfs != m.RootfsFile[arch] || l.Stream != m.Stream {
			t.Fatalf("%s: live %+v", arch, l)
		}
		if is.BaseISO != m.ISO[arch] || is.Install.ISOSHA256 != coreostest.FileSHA256(t, m.ISO[arch]) ||
			is.Install.RootfsSHA256 != coreostest.FileSHA256(t, m.RootfsFile[arch]) {
			t.Errorf("%s: image set %+v", arch, is)
		}
	}
	if got := cfg.ImageSets[0].Live.KernelArgs; got != "console=ttyS0,115200n8" {
		t.Errorf("kernel arguments %q", got)
	}
	for _, goarch := range []string{"amd64", "arm64"} {
		a := cfg.Server.Agents[goarch]
		sum := sha512.Sum512(m.Agent[goarch])
		if a.Path != filepath.Join(m.AgentDir, goarch, "rackboot-agent") || a.SHA512 != hex.EncodeToString(sum[:]) {
			t.Errorf("agent %s: %+v", goarch, a)
		}
	}
}

// TestLiveImageSetPair: live_iso and live_rootfs (the osImages pair), with
// the sums given checked.
func TestLiveImageSetPair(t *testing.T) {
	m := coreostest.NewMirror(t)
	doc := liveHead(m) + fmt.Sprintf(`
[[image_set]]
name = "rhcos"
version = "4.17.0"
live_iso = %q
live_rootfs = %q
rootfs_sha256 = %q
`, m.ISO["x86_64"], m.RootfsFile["x86_64"], coreostest.FileSHA256(t, m.RootfsFile["x86_64"]))
	cfg, err := Parse("rackboot.toml", []byte(doc), "/")
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.ImageSets[0].Live
	if l == nil || l.ISO != m.ISO["x86_64"] || l.Rootfs != m.RootfsFile["x86_64"] || l.ISOSHA256 != "" || l.Stream != "" {
		t.Errorf("live %+v", l)
	}
}

// TestLiveImageSetErrors: each wrong CoreOS image set is refused with a
// message at its key.
func TestLiveImageSetErrors(t *testing.T) {
	m := coreostest.NewMirror(t)
	iso, rootfs := m.ISO["x86_64"], m.RootfsFile["x86_64"]
	wrongSum := strings.Repeat("0", 64)
	armless := strings.Replace(m.Stream, "stream.json", "x86only.json", 1)
	raw, err := os.ReadFile(m.Stream)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(armless, []byte(strings.Replace(string(raw), `"aarch64"`, `"s390x"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ body, want string }{
		"both forms": {fmt.Sprintf("live_iso = %q\nlive_rootfs = %q\ncoreos_stream = %q", iso, rootfs, m.Stream),
			"coreos_stream cannot be combined with live_iso and live_rootfs"},
		"iso only":  {fmt.Sprintf("live_iso = %q", iso), "needs both live_iso and live_rootfs"},
		"profile":   {fmt.Sprintf("coreos_stream = %q\nprofile = \"discovery\"", m.Stream), "profile cannot be combined with CoreOS artifacts"},
		"bad sum":   {fmt.Sprintf("live_iso = %q\nlive_rootfs = %q\nrootfs_sha256 = %q", iso, rootfs, wrongSum), "sha256 mismatch: " + rootfs},
		"tampered":  {fmt.Sprintf("coreos_stream = %q", m.Stream), "sha256 mismatch"},
		"arch":      {fmt.Sprintf("cpu_arch = \"aarch64\"\ncoreos_stream = %q", armless), `no architecture "aarch64" (it has s390x, x86_64)`},
		"ppc":       {fmt.Sprintf("cpu_arch = \"ppc64le\"\ncoreos_stream = %q", m.Stream), "CoreOS image sets are x86_64 (amd64) or aarch64 (arm64)"},
		"unsafe":    {fmt.Sprintf("coreos_stream = %q\nkernel_arguments = \"a ; shell\"", m.Stream), "could inject iPXE commands"},
		"no stream": {"coreos_mirror = \"/srv\"", "need live_iso and live_rootfs, or coreos_stream"},
		"no agent":  {fmt.Sprintf("coreos_stream = %q\ncpu_arch = \"arm64\"", m.Stream), "needs rackboot-agent built for arm64 at "},
		"missing":   {"live_iso = \"/nonexistent.iso\"\nlive_rootfs = \"/nonexistent.img\"", `image_set.live_iso "/nonexistent.iso" does not exist`},
	} {
		t.Run(name, func(t *testing.T) {
			if name == "tampered" {
				if err := os.WriteFile(m.RootfsFile["x86_64"], []byte("tampered"), 0o644); err != nil {
					t.Fatal(err)
				}
				defer os.WriteFile(m.RootfsFile["x86_64"], m.Rootfs["x86_64"], 0o644)
			}
			head := liveHead(m)
			if name == "no agent" {
				head = strings.Replace(head, m.AgentDir, t.TempDir(), 1)
			}
			doc := head + "[[profile]]\nname = \"discovery\"\nkernel = \"" + iso + "\"\ninitrd = \"" + rootfs + "\"\n" +
				"[[image_set]]\nname = \"cos\"\n" + tc.body + "\n"
			_, err := Parse("rackboot.toml", []byte(doc), "/")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant %q", err, tc.want)
			}
		})
	}
}

// TestLiveImageSetStreamMetalIsTheDiskImage: an installing coreos_stream
// image set without disk_image installs the stream's metal .raw.xz, its
// sha256 the stream's; one that does not install has no disk image.
func TestLiveImageSetStreamMetalIsTheDiskImage(t *testing.T) {
	m := coreostest.NewMirror(t)
	roles := t.TempDir()
	doc := liveHead(m) + fmt.Sprintf(`
[[image_set]]
name = "fcos"
coreos_stream = %q
role_ignition_dir = %q

[[image_set]]
name = "fcos-discovery"
coreos_stream = %q
`, m.Stream, roles, m.Stream)
	cfg, err := Parse("rackboot.toml", []byte(doc), "/")
	if err != nil {
		t.Fatal(err)
	}
	in := cfg.ImageSets[0].Install
	if in.DiskImage != m.Metal["x86_64"] || in.DiskImageSHA256 != coreostest.FileSHA256(t, m.Metal["x86_64"]) || in.DiskImageSize == 0 {
		t.Errorf("disk image %+v", in)
	}
	if d := cfg.ImageSets[1].Install.DiskImage; d != "" {
		t.Errorf("a discovery-only image set installs %s", d)
	}
}
