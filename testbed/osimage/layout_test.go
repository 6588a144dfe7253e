package osimage

import (
	"bytes"
	"compress/gzip"
	"debug/pe"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cavaliergopher/cpio"

	"github.com/rackboot/rackboot/testbed/image"
)

// builtImage builds (or finds in the shared cache) the OS image from this
// repository's Ignition.
func builtImage(t *testing.T) Image {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the OS image (and Ignition, minutes the first time)")
	}
	for _, tool := range []string{"apt-get", "dpkg-deb", "sgdisk", "mformat", "mcopy", "objcopy", "ldd", "curl", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s to build the OS image (testbed/install-deps.sh)", tool)
		}
	}
	for _, f := range []string{DefaultStub, image.DefaultBusybox, "/usr/lib/x86_64-linux-gnu/libblkid.a"} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("cannot build the OS image: %v", err)
		}
	}
	cache, err := image.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	root, err := image.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	img, err := BuildFromSource(t.Context(), root, cache)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestBuildLayout: the image is a GPT disk with the ESP, ignition and
// rackboot-state partitions on MiB boundaries, both data partitions zero,
// and the sha256 and size Build reports are the file's.
func TestBuildLayout(t *testing.T) {
	img := builtImage(t)
	data, err := os.ReadFile(img.Path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != img.Size {
		t.Errorf("Size = %d, file has %d bytes", img.Size, len(data))
	}
	if sum, _ := fileSHA256(img.Path); sum != img.SHA256 {
		t.Errorf("SHA256 = %s, file's is %s", img.SHA256, sum)
	}
	if img.Size > 64*mib {
		t.Errorf("image is %d MiB; it is streamed to every installing host, keep it small", img.Size/mib)
	}
	parts, err := ReadGPT(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name string
		size int64
	}{{ESPName, 0}, {IgnitionName, IgnitionSize}, {StateName, StateSize}}
	if len(parts) != len(want) {
		t.Fatalf("partitions = %+v, want %d", parts, len(want))
	}
	for i, w := range want {
		p := parts[i]
		if p.Name != w.name || p.Number != i+1 {
			t.Errorf("partition %d = %q (number %d), want %q", i+1, p.Name, p.Number, w.name)
		}
		if p.Offset()%mib != 0 || (w.size != 0 && p.Size() != w.size) {
			t.Errorf("%s at %d, %d bytes; want MiB-aligned, %d bytes", p.Name, p.Offset(), p.Size(), w.size)
		}
		if i > 0 && p.FirstLBA <= parts[i-1].LastLBA {
			t.Errorf("%s overlaps %s", p.Name, parts[i-1].Name)
		}
	}
	if parts[0].Type != ESPType || parts[0].Offset() != espStart {
		t.Errorf("ESP: type %s at %d, want %s at %d", parts[0].Type, parts[0].Offset(), ESPType, espStart)
	}
	if end := parts[2].LastLBA*sector + sector; int64(end)+33*sector > img.Size {
		t.Errorf("no room for the backup GPT after %d", end)
	}
	for _, p := range parts[1:] {
		if !allZero(data[p.Offset() : p.Offset()+p.Size()]) {
			t.Errorf("partition %s is not zero", p.Name)
		}
	}
}

func allZero(b []byte) bool { return len(bytes.Trim(b, "\x00")) == 0 }

// TestBuildUKI: the ESP holds EFI/BOOT/BOOTX64.EFI, a PE image (the stub)
// with the kernel, initrd, command line and os-release sections.
func TestBuildUKI(t *testing.T) {
	img := builtImage(t)
	uki := espFile(t, img.Path, "::EFI/BOOT/BOOTX64.EFI")
	f, err := pe.NewFile(bytes.NewReader(uki))
	if err != nil {
		t.Fatalf("BOOTX64.EFI is not a PE image: %v", err)
	}
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		t.Errorf("machine = %#x, want AMD64", f.Machine)
	}
	sec := map[string][]byte{}
	for _, s := range f.Sections {
		b, err := s.Data()
		if err != nil {
			t.Fatalf("section %s: %v", s.Name, err)
		}
		sec[s.Name] = b[:min(len(b), int(s.VirtualSize))]
	}
	for _, name := range []string{".text", ".sdmagic", ".osrel", ".cmdline", ".linux", ".initrd"} {
		if _, ok := sec[name]; !ok {
			t.Errorf("no %s section", name)
		}
	}
	if got := string(sec[".cmdline"]); got != DefaultCmdline {
		t.Errorf(".cmdline = %q, want %q", got, DefaultCmdline)
	}
	if !strings.Contains(string(sec[".osrel"]), "ID=rackboot-testbed\n") {
		t.Errorf(".osrel = %q", sec[".osrel"])
	}
	if k := sec[".linux"]; len(k) < 0x206 || string(k[0x202:0x206]) != "HdrS" || string(k[:2]) != "MZ" {
		t.Error(".linux is not an EFI-stub bzImage")
	}
	names := initrdNames(t, sec[".initrd"])
	for _, n := range []string{"init", BusyboxPath, IgnitionPath, CurlPath, "lib64/ld-linux-x86-64.so.2",
		"lib/x86_64-linux-gnu/libcurl.so.4", "lib/modules/virtio_blk.ko", "usr/sbin/useradd", "etc/udhcpc.script"} {
		if _, ok := names[n]; !ok {
			t.Errorf("the initrd has no %s", n)
		}
	}
	if names["init"] != initScript() {
		t.Error("the initrd's /init is not initScript()")
	}
}

// espFile copies one file out of the image's ESP with mtools.
func espFile(t *testing.T, disk, name string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "file")
	cmd := exec.Command("mcopy", "-i", fmt.Sprintf("%s@@%d", disk, espStart), name, out)
	cmd.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mcopy %s: %v: %s", name, err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// initrdNames lists a gzip newc cpio: name -> contents.
func initrdNames(t *testing.T, gz []byte) map[string]string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatalf("initrd: %v", err)
	}
	r := cpio.NewReader(zr)
	out := map[string]string{}
	for {
		hdr, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("initrd: %v", err)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		out[hdr.Name] = string(b)
	}
}
