package coreosimage

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/cavaliergopher/cpio"

	"github.com/rackboot/rackboot/boot/coreos"
	"github.com/rackboot/rackboot/boot/iso"
	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/isoimage"
)

// builtMirror publishes (or finds in the shared cache) the mirror from
// this repository's Ignition and OS image.
func builtMirror(t *testing.T) Mirror {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the live image set and the OS image (minutes the first time)")
	}
	for _, tool := range []string{"apt-get", "dpkg-deb", "ldd", "xz", "gcc", "sgdisk", "mcopy", "objcopy"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s to build the images (testbed/install-deps.sh)", tool)
		}
	}
	if err := isoimage.CheckTools(); err != nil {
		t.Skip(err)
	}
	cache, err := image.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	root, err := image.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	m, err := BuildFromSource(t.Context(), root, cache)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMirrorIsACoreOSStream: rackbootd's own readers (boot/coreos, as
// coreos_stream loads) find the live ISO, the rootfs and the raw.xz in the
// mirror with sha256s that match, the metal image decompresses to the raw
// image the stream's uncompressed-sha256 names, and the ISO's PXE kernel
// and initramfs are the stream's pxe files.
func TestMirrorIsACoreOSStream(t *testing.T) {
	m := builtMirror(t)
	a, err := coreos.FromStream(m.Stream, m.Dir, "amd64")
	if err != nil {
		t.Fatal(err)
	}
	if a.ISO != (coreos.File{Path: m.ISO.Path, SHA256: m.ISO.SHA256}) || a.Rootfs.Path != m.Rootfs.Path || a.Metal.Path != m.Metal.Path {
		t.Errorf("FromStream = %+v, mirror %+v", a, m)
	}
	if err := coreos.Verify(t.Context(), a.ISO, a.Rootfs, a.Metal, coreos.File{Path: m.Kernel.Path, SHA256: m.Kernel.SHA256},
		coreos.File{Path: m.Initrd.Path, SHA256: m.Initrd.SHA256}); err != nil {
		t.Error(err)
	}
	raw, err := exec.Command("xz", "-dc", m.Metal.Path).Output()
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != a.MetalUncompressedSHA256 || a.MetalUncompressedSHA256 == "" {
		t.Errorf("raw.xz holds sha256 %x, stream says uncompressed-sha256 %q", sum, a.MetalUncompressedSHA256)
	}
	pxe, err := coreos.ExtractPXE(m.ISO.Path, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]string{{pxe.Kernel, m.Kernel.Path}, {pxe.Initrd, m.Initrd.Path}} {
		if !sameFile(t, p[0], p[1]) {
			t.Errorf("the ISO's %s is not the stream's %s", p[0], p[1])
		}
	}
	before, err := os.Stat(m.Stream)
	if err != nil {
		t.Fatal(err)
	}
	again := builtMirror(t)
	after, err := os.Stat(again.Stream)
	if err != nil || again.Stream != m.Stream || again.ISO != m.ISO || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("a second build = %+v, %v; want the cached %s untouched", again, err, m.Stream)
	}
}

// TestLiveISOLayout: the ISO carries images/pxeboot/rootfs.img (the
// stream's rootfs), an embed area boot/iso finds (the one rackbootd writes
// a host's config into) and kargs areas holding CoreOS's live arguments,
// with the volume label coreos.liveiso names.
func TestLiveISOLayout(t *testing.T) {
	m := builtMirror(t)
	f, err := os.Open(m.ISO.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	rec, err := iso.Find(f, st.Size(), coreos.ISORootfs)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(io.NewSectionReader(f, rec.Offset, rec.Size))
	if want, _ := os.ReadFile(m.Rootfs.Path); !bytes.Equal(got, want) {
		t.Errorf("%s: %d bytes, not the stream's rootfs (%d)", coreos.ISORootfs, len(got), len(want))
	}
	lay, err := iso.Inspect(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if lay.Ignition.Length != isoimage.EmbedAreaSize {
		t.Errorf("embed area %+v, want %d bytes", lay.Ignition, isoimage.EmbedAreaSize)
	}
	want := "coreos.liveiso=" + m.Label + " ignition.firstboot ignition.platform.id=metal " + LiveKargs
	if lay.Kargs == nil || lay.Kargs.Default != want || len(lay.Kargs.Regions) != 2 {
		t.Errorf("kargs %+v, want default %q in 2 regions", lay.Kargs, want)
	}
	label := make([]byte, 32)
	if _, err := f.ReadAt(label, 16*2048+40); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimRight(string(label), " "); got != m.Label {
		t.Errorf("volume label %q, want %q", got, m.Label)
	}
}

// TestLiveInitramfsHasNoAgent: the live initramfs carries Ignition, the
// rootfs check and the rootfs's sha256, and no rackboot-agent (it arrives
// through Ignition); the rootfs carries curl and xz with their loader.
func TestLiveInitramfsHasNoAgent(t *testing.T) {
	m := builtMirror(t)
	initrd := archiveFiles(t, m.Initrd.Path)
	for _, name := range []string{"init", image.IgnitionPath, RootfsScriptPath, RootfsSHA256Path, "lib/modules/isofs.ko", "lib/modules/sr_mod.ko"} {
		if _, ok := initrd[name]; !ok {
			t.Errorf("initramfs has no %s", name)
		}
	}
	for name := range initrd {
		if strings.Contains(name, "rackboot-agent") {
			t.Errorf("initramfs carries %s", name)
		}
	}
	if got := strings.TrimSpace(string(initrd[RootfsSHA256Path])); got != m.Rootfs.SHA256 {
		t.Errorf("initramfs wants rootfs %s, the stream's is %s", got, m.Rootfs.SHA256)
	}
	rootfs := archiveFiles(t, m.Rootfs.Path)
	for _, name := range []string{"usr/bin/curl", "usr/bin/xz", "lib64/ld-linux-x86-64.so.2"} {
		if _, ok := rootfs[name]; !ok {
			t.Errorf("rootfs has no %s", name)
		}
	}
}

// archiveFiles reads a gzip newc cpio: regular files by name.
func archiveFiles(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	r := cpio.NewReader(zr)
	out := map[string][]byte{}
	for {
		hdr, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Mode.IsRegular() {
			b, _ := io.ReadAll(r)
			out[hdr.Name] = b
		}
	}
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
