package main

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// metal is the metal image: raw and .raw.xz, with the boot partition's
// place (the agent edits it) and the sums.
type metal struct {
	raw, xz              string
	rawSize, xzSize      int64
	xzSHA256             string
	bootOff, bootSize    int64
	rawSHA256OutsideBoot string // sha256 of the raw image without [bootOff, bootOff+bootSize)
}

// Partition layout in MiB (coreos-assembler's: BIOS-BOOT 1 MiB,
// EFI-SYSTEM 127 MiB, boot 384 MiB, root the rest; boot is smaller here).
const (
	biosMiB = 1
	efiMiB  = 127
	bootMiB = 128
)

// makeMetal writes dir/metal.raw of sizeMiB and dir/metal.raw.xz, or
// reuses them when a previous run left them (metal.size names the size).
func makeMetal(dir string, sizeMiB int) (metal, error) {
	m := metal{raw: filepath.Join(dir, "metal.raw"), xz: filepath.Join(dir, "metal.raw.xz"), rawSize: int64(sizeMiB) << 20}
	m.bootOff, m.bootSize = (1+biosMiB+efiMiB)<<20, bootMiB<<20
	stamp := filepath.Join(dir, "metal.size")
	if b, err := os.ReadFile(stamp); err != nil || string(b) != strconv.Itoa(sizeMiB) {
		if err := buildRaw(dir, m); err != nil {
			return m, err
		}
		xz := exec.Command("sh", "-c", `xz -T0 -1 -c "$1" > "$2"`, "xz", m.raw, m.xz)
		if out, err := xz.CombinedOutput(); err != nil {
			return m, fmt.Errorf("xzinstall: xz: %w: %s", err, out)
		}
		if err := os.WriteFile(stamp, []byte(strconv.Itoa(sizeMiB)), 0o644); err != nil {
			return m, err
		}
	}
	var err error
	if m.xzSHA256, m.xzSize, err = fileSum(m.xz); err != nil {
		return m, err
	}
	f, err := os.Open(m.raw)
	if err != nil {
		return m, err
	}
	defer f.Close()
	m.rawSHA256OutsideBoot, err = sumOutside(f, m)
	return m, err
}

// buildRaw lays out the GPT with sgdisk, makes the boot file system with
// mkfs.ext4 -d (ignition.firstboot stamp, a BLS entry), and fills 70% of
// root with a tar stream of /usr's files (real binaries and libraries;
// the rest stays zero, like a fresh image's free space).
func buildRaw(dir string, m metal) error {
	if err := os.Truncate(m.raw, 0); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.Create(m.raw)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(m.rawSize); err != nil {
		return err
	}
	rootStart := 1 + biosMiB + efiMiB + bootMiB
	sg := exec.Command("sgdisk", "-Z",
		"-n", fmt.Sprintf("1:1M:+%dM", biosMiB), "-t", "1:ef02", "-c", "1:BIOS-BOOT",
		"-n", fmt.Sprintf("2:0:+%dM", efiMiB), "-t", "2:ef00", "-c", "2:EFI-SYSTEM",
		"-n", fmt.Sprintf("3:0:+%dM", bootMiB), "-c", "3:boot",
		"-n", "4:0:0", "-c", "4:root", m.raw)
	if out, err := sg.CombinedOutput(); err != nil {
		return fmt.Errorf("xzinstall: sgdisk (Debian package gdisk): %w: %s", err, out)
	}
	if err := bootFS(dir, f, m); err != nil {
		return err
	}
	rootOff := int64(rootStart) << 20
	fill := (m.rawSize - rootOff - 1<<20) * 7 / 10
	w := &offsetWriter{f: f, off: rootOff, left: fill}
	if err := tarUsr(w); err != nil && !errors.Is(err, errFull) {
		return err
	}
	return f.Sync()
}

// bootFS makes the ext4 boot file system and copies it into place.
func bootFS(dir string, f *os.File, m metal) error {
	tree := filepath.Join(dir, "boot-tree")
	entry := filepath.Join(tree, "loader", "entries", "ostree-1-fedora-coreos.conf")
	if err := os.MkdirAll(filepath.Dir(entry), 0o755); err != nil {
		return err
	}
	bls := "title Fedora CoreOS (bench)\nversion 1\nlinux /ostree/vmlinuz\ninitrd /ostree/initramfs.img\n" +
		"options mitigations=auto,nosmt ignition.platform.id=metal $ignition_firstboot root=UUID=0 rw\n"
	if err := os.WriteFile(entry, []byte(bls), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tree, "ignition.firstboot"), nil, 0o644); err != nil {
		return err
	}
	img := filepath.Join(dir, "boot.ext4")
	_ = os.Remove(img)
	mk := exec.Command("mkfs.ext4", "-q", "-F", "-L", "boot", "-d", tree, img, fmt.Sprintf("%dM", bootMiB))
	if out, err := mk.CombinedOutput(); err != nil {
		return fmt.Errorf("xzinstall: mkfs.ext4: %w: %s", err, out)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(b, m.bootOff)
	return err
}

var errFull = errors.New("full")

// offsetWriter writes at off until left bytes are written.
type offsetWriter struct {
	f    *os.File
	off  int64
	left int64
}

func (w *offsetWriter) Write(b []byte) (int, error) {
	if int64(len(b)) > w.left {
		b = b[:w.left]
	}
	n, err := w.f.WriteAt(b, w.off)
	w.off += int64(n)
	w.left -= int64(n)
	if err == nil && w.left == 0 {
		err = errFull
	}
	return n, err
}

// tarUsr writes a tar stream of /usr's regular files to w until it is full.
func tarUsr(w io.Writer) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir("/usr", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		hdr, err := tar.FileInfoHeader(fi, "")
		if err != nil {
			return nil
		}
		hdr.Name = path
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

func fileSum(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// sumOutside is the sha256 of the first rawSize bytes of r without the
// boot partition.
func sumOutside(r io.ReaderAt, m metal) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(r, 0, m.bootOff)); err != nil {
		return "", err
	}
	end := m.bootOff + m.bootSize
	if _, err := io.Copy(h, io.NewSectionReader(r, end, m.rawSize-end)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
