package coreos_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/boot/coreos"
	"github.com/rackboot/rackboot/boot/coreos/coreostest"
)

func TestFromStreamFindsEachArchitectureInTheMirror(t *testing.T) {
	m := coreostest.NewMirror(t)
	for arch, alias := range map[string]string{"x86_64": "amd64", "aarch64": "arm64"} {
		for _, name := range []string{arch, alias} {
			a, err := coreos.FromStream(m.Stream, m.Dir, name)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if a.Arch != arch || a.ISO.Path != m.ISO[arch] || a.Rootfs.Path != m.RootfsFile[arch] {
				t.Errorf("%s: got %+v", name, a)
			}
			if a.ISO.SHA256 != coreostest.FileSHA256(t, m.ISO[arch]) || a.Rootfs.SHA256 != coreostest.FileSHA256(t, m.RootfsFile[arch]) {
				t.Errorf("%s: sums %+v", name, a)
			}
			if a.Metal.Path != m.Metal[arch] || a.Metal.SHA256 != coreostest.FileSHA256(t, m.Metal[arch]) || len(a.MetalUncompressedSHA256) != 64 {
				t.Errorf("%s: metal %+v %s", name, a.Metal, a.MetalUncompressedSHA256)
			}
			if err := coreos.Verify(t.Context(), a.ISO, a.Rootfs, a.Metal); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
}

func TestFromStreamRefusesUnknownArchAndMissingFiles(t *testing.T) {
	m := coreostest.NewMirror(t)
	if _, err := coreos.FromStream(m.Stream, m.Dir, "ppc64le"); !errors.Is(err, coreos.ErrArch) ||
		!strings.Contains(err.Error(), "aarch64, x86_64") {
		t.Errorf("ppc64le: %v", err)
	}
	if err := os.Remove(m.RootfsFile["aarch64"]); err != nil {
		t.Fatal(err)
	}
	_, err := coreos.FromStream(m.Stream, m.Dir, "aarch64")
	if err == nil || !strings.Contains(err.Error(), "live-rootfs.aarch64.img is not in the mirror") {
		t.Errorf("missing rootfs: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "stream.json")
	if err := os.WriteFile(bad, []byte(`{"architectures": [}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := coreos.FromStream(bad, m.Dir, "x86_64"); !errors.Is(err, coreos.ErrStream) {
		t.Errorf("bad JSON: %v", err)
	}
}

func TestVerifyNamesTheFileWhoseSumDiffers(t *testing.T) {
	m := coreostest.NewMirror(t)
	a, err := coreos.FromStream(m.Stream, m.Dir, "x86_64")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a.Rootfs.Path, []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = coreos.Verify(t.Context(), a.ISO, a.Rootfs)
	if !errors.Is(err, coreos.ErrChecksum) || !strings.Contains(err.Error(), a.Rootfs.Path) ||
		!strings.Contains(err.Error(), "expected "+a.Rootfs.SHA256) {
		t.Errorf("got %v", err)
	}
}

func TestExtractPXETakesKernelAndInitramfsOutOfTheISO(t *testing.T) {
	m := coreostest.NewMirror(t)
	cache := t.TempDir()
	pxe, err := coreos.ExtractPXE(m.ISO["aarch64"], cache)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{pxe.Kernel: m.Kernel["aarch64"], pxe.Initrd: m.Initrd["aarch64"]} {
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v; want %d bytes", path, len(got), err, len(want))
		}
	}
	again, err := coreos.ExtractPXE(m.ISO["aarch64"], cache)
	if err != nil || again != pxe {
		t.Errorf("second extraction: %+v, %v; want %+v", again, err, pxe)
	}
	other, err := coreos.ExtractPXE(m.ISO["x86_64"], cache)
	if err != nil || other.Kernel == pxe.Kernel {
		t.Errorf("another ISO shares the cache entry: %+v, %v", other, err)
	}
}

func TestExtractPXERefusesAnISOWithoutPXEFiles(t *testing.T) {
	m := coreostest.NewMirror(t)
	// The rootfs is no ISO at all.
	if _, err := coreos.ExtractPXE(m.RootfsFile["x86_64"], t.TempDir()); !errors.Is(err, coreos.ErrISO) {
		t.Errorf("got %v", err)
	}
}

func TestLiveArgsIsSeed001Order(t *testing.T) {
	got := coreos.LiveArgs("http://10.0.0.1:8080/images/rhcos/rootfs.img", " console=tty1  console=ttyS1,115200n8", "", "rd.luks.options=discard")
	want := "coreos.live.rootfs_url=http://10.0.0.1:8080/images/rhcos/rootfs.img ignition.firstboot ignition.platform.id=metal console=tty1 console=ttyS1,115200n8 rd.luks.options=discard"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
