package osimage

import (
	"bytes"
	"compress/gzip"
	"debug/pe"
	"encoding/binary"
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
	"github.com/rackboot/rackboot/testbed/internal/buildfs"
)

// builtImage builds (or finds in the shared cache) the OS image from this
// repository's Ignition.
func builtImage(t *testing.T) Image {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the OS image (and Ignition, minutes the first time)")
	}
	for _, tool := range []string{"apt-get", "dpkg-deb", "sgdisk", "mformat", "mcopy", "mkfs.ext4", "debugfs", "grub-mkstandalone",
		"grub-mkimage", "ldd", "curl", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s to build the OS image (testbed/install-deps.sh)", tool)
		}
	}
	for _, f := range []string{"/usr/lib/grub/x86_64-efi/linux.mod", GrubPCDir + "/boot.img", image.DefaultBusybox, "/usr/lib/x86_64-linux-gnu/libblkid.a"} {
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

// TestBuildLayout: the image is a CoreOS metal image's GPT — BIOS-BOOT,
// EFI-SYSTEM, boot and root, in that order, on MiB boundaries, with room
// for the backup GPT — and the sha256 and size Build reports are the
// file's.
func TestBuildLayout(t *testing.T) {
	img := builtImage(t)
	data, err := os.ReadFile(img.Path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != img.Size {
		t.Errorf("Size = %d, file has %d bytes", img.Size, len(data))
	}
	if sum, _ := buildfs.FileSHA256(img.Path); sum != img.SHA256 {
		t.Errorf("SHA256 = %s, file's is %s", img.SHA256, sum)
	}
	if img.Size > 64*mib {
		t.Errorf("image is %d MiB; it is streamed to every installing host, keep it small", img.Size/mib)
	}
	parts, err := ReadGPT(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	const linuxFS = "0FC63DAF-8483-4772-8E79-3D69D8477DE4"
	want := []struct {
		name, typ string
		size      int64
	}{{BIOSBootName, "21686148-6449-6E6F-744E-656564454649", BIOSSize}, {ESPName, ESPType, ESPSize},
		{BootName, linuxFS, 0}, {RootName, linuxFS, RootSize}}
	if len(parts) != len(want) {
		t.Fatalf("partitions = %+v, want %d", parts, len(want))
	}
	for i, w := range want {
		p := parts[i]
		if p.Name != w.name || p.Number != i+1 || p.Type != w.typ {
			t.Errorf("partition %d = %q (number %d, type %s), want %q of type %s", i+1, p.Name, p.Number, p.Type, w.name, w.typ)
		}
		if p.Offset()%mib != 0 || (w.size != 0 && p.Size() != w.size) {
			t.Errorf("%s at %d, %d bytes; want MiB-aligned, %d bytes", p.Name, p.Offset(), p.Size(), w.size)
		}
		if i > 0 && p.FirstLBA <= parts[i-1].LastLBA {
			t.Errorf("%s overlaps %s", p.Name, parts[i-1].Name)
		}
	}
	if end := parts[3].LastLBA*sector + sector; int64(end)+33*sector > img.Size {
		t.Errorf("no room for the backup GPT after %d", end)
	}
	checkBIOSBoot(t, data, parts[0])
}

// checkBIOSBoot: the MBR is GRUB's boot.img pointing at BIOS-BOOT's first
// sector, with the protective MBR's partition (type 0xEE) and signature;
// BIOS-BOOT holds core.img, whose first sector (diskboot.img) lists the
// rest of it.
func checkBIOSBoot(t *testing.T, data []byte, p Partition) {
	t.Helper()
	boot, err := os.ReadFile(GrubPCDir + "/boot.img")
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	mbr := data[:sector]
	if !bytes.Equal(mbr[:bootImgKernelSector], boot[:bootImgKernelSector]) || le.Uint64(mbr[bootImgKernelSector:]) != p.FirstLBA {
		t.Errorf("MBR code is not boot.img pointing at LBA %d (it points at %d)", p.FirstLBA, le.Uint64(mbr[bootImgKernelSector:]))
	}
	if mbr[446+4] != 0xee || mbr[510] != 0x55 || mbr[511] != 0xaa {
		t.Error("the protective MBR's partition or signature is gone")
	}
	core := data[p.Offset() : p.Offset()+p.Size()]
	start, n := le.Uint64(core[diskbootBlocklist:]), le.Uint16(core[diskbootBlocklist+8:])
	if start != p.FirstLBA+1 || n == 0 || int64(n+1)*sector > p.Size() || allZero(core[int(n)*sector:(int(n)+1)*sector]) {
		t.Errorf("core.img's block list: %d sectors at LBA %d, want the rest of core.img at %d", n, start, p.FirstLBA+1)
	}
}

func allZero(b []byte) bool { return len(bytes.Trim(b, "\x00")) == 0 }

// TestBuildBootFileSystem: boot is an ext4 labelled boot holding the
// first-boot stamp, one BLS entry whose options carry the console, the
// metal platform and $ignition_firstboot, and the kernel and OS initramfs
// it names; no Ignition config yet. root is an ext4 labelled root. Read
// back with debugfs and dumpe2fs, nothing mounted.
func TestBuildBootFileSystem(t *testing.T) {
	img := builtImage(t)
	ctx := t.Context()
	for _, fs := range []struct{ part, label string }{{BootName, "boot"}, {RootName, "root"}} {
		if got := fsLabel(t, img.Path, fs.part); got != fs.label {
			t.Errorf("partition %s: file system label %q, want %q (ext4)", fs.part, got, fs.label)
		}
	}
	if b, ok, err := ReadBootFile(ctx, img.Path, StampName); err != nil || !ok || len(b) != 0 {
		t.Errorf("stamp %s: %q present %t (%v), want an empty file", StampName, b, ok, err)
	}
	entry, ok, err := ReadBootFile(ctx, img.Path, EntryPath)
	if err != nil || !ok {
		t.Fatalf("BLS entry %s: present %t, %v", EntryPath, ok, err)
	}
	kv := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(entry)), "\n") {
		k, v, _ := strings.Cut(l, " ")
		kv[k] = v
	}
	if kv["options"] != DefaultCmdline+" ignition.platform.id=metal $ignition_firstboot" {
		t.Errorf("options = %q", kv["options"])
	}
	if kv["linux"] != "/vmlinuz-"+kv["version"] || kv["initrd"] != "/initramfs-"+kv["version"]+".img" || kv["title"] == "" {
		t.Errorf("entry:\n%s", entry)
	}
	kernel, ok, err := ReadBootFile(ctx, img.Path, kv["linux"])
	if err != nil || !ok || len(kernel) < 0x206 || string(kernel[0x202:0x206]) != "HdrS" {
		t.Errorf("%s is not a bzImage (present %t, %v)", kv["linux"], ok, err)
	}
	initrd, ok, err := ReadBootFile(ctx, img.Path, kv["initrd"])
	if err != nil || !ok {
		t.Fatalf("%s: present %t, %v", kv["initrd"], ok, err)
	}
	names := initrdNames(t, initrd)
	for _, n := range []string{"init", BusyboxPath, IgnitionPath, CurlPath, "lib64/ld-linux-x86-64.so.2",
		"lib/x86_64-linux-gnu/libcurl.so.4", "lib/modules/virtio_blk.ko", "lib/modules/ext4.ko", "lib/modules/jbd2.ko",
		"usr/sbin/useradd", "etc/udhcpc.script"} {
		if _, ok := names[n]; !ok {
			t.Errorf("the initramfs has no %s", n)
		}
	}
	if names["init"] != initScript() {
		t.Error("the initramfs's /init is not initScript()")
	}
	if _, ok, err := ReadBootFile(ctx, img.Path, ConfigPath); ok || err != nil {
		t.Errorf("the built image has %s (%v)", ConfigPath, err)
	}
}

// fsLabel is the ext4 volume name of partition name, read with dumpe2fs.
func fsLabel(t *testing.T, disk, name string) string {
	t.Helper()
	f, err := os.Open(disk)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parts, err := ReadGPT(f)
	if err != nil {
		t.Fatal(err)
	}
	p, err := FindPartition(parts, name)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("dumpe2fs", "-h", fmt.Sprintf("%s?offset=%d", disk, p.Offset())).CombinedOutput()
	if err != nil {
		t.Fatalf("dumpe2fs %s: %v: %s", name, err, out)
	}
	if !strings.Contains(string(out), "Filesystem features:") || !strings.Contains(string(out), "extent") {
		t.Errorf("%s is not an ext4: %s", name, out)
	}
	_, rest, _ := strings.Cut(string(out), "Filesystem volume name:")
	l, _, _ := strings.Cut(rest, "\n")
	return strings.TrimSpace(l)
}

// TestBuildGrub: EFI-SYSTEM holds EFI/BOOT/BOOTX64.EFI, an x86-64 EFI
// application (GRUB) carrying grub.cfg.
func TestBuildGrub(t *testing.T) {
	img := builtImage(t)
	efi := espFile(t, img.Path, "::EFI/BOOT/BOOTX64.EFI")
	f, err := pe.NewFile(bytes.NewReader(efi))
	if err != nil {
		t.Fatalf("BOOTX64.EFI is not a PE image: %v", err)
	}
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		t.Errorf("machine = %#x, want AMD64", f.Machine)
	}
	if oh, ok := f.OptionalHeader.(*pe.OptionalHeader64); !ok || oh.Subsystem != pe.IMAGE_SUBSYSTEM_EFI_APPLICATION {
		t.Error("BOOTX64.EFI is not an EFI application")
	}
	for _, s := range []string{"search --no-floppy --label boot", "function options", `source "$entry"`,
		"/ignition.firstboot", "linux /vmlinuz-${bls_version} ${bls_options}"} {
		if !strings.Contains(GrubCfg(), s) {
			t.Errorf("grub.cfg lacks %q", s)
		}
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
