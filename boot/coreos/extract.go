package coreos

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rackboot/rackboot/boot/iso"
)

// Paths of the PXE artifacts inside a CoreOS live ISO.
const (
	ISOKernel = "images/pxeboot/vmlinuz"
	ISOInitrd = "images/pxeboot/initrd.img"
	ISORootfs = "images/pxeboot/rootfs.img"
)

// PXE is the kernel and live initramfs taken out of a live ISO.
type PXE struct {
	Kernel string
	Initrd string
}

// ExtractPXE copies the ISO's images/pxeboot/vmlinuz and initrd.img into
// a directory of cacheDir named after the ISO's identity (path, size,
// modification time), unless an earlier call did: a changed ISO gets a
// directory of its own. Files are written under a temporary name and
// renamed, so a reader never sees half of one. An ISO without them is an
// error wrapping ErrISO.
func ExtractPXE(isoPath, cacheDir string) (PXE, error) {
	f, err := os.Open(isoPath)
	if err != nil {
		return PXE{}, fmt.Errorf("live ISO: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return PXE{}, fmt.Errorf("live ISO: %w", err)
	}
	dir := filepath.Join(cacheDir, identity(isoPath, fi))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return PXE{}, fmt.Errorf("PXE artifact cache: %w", err)
	}
	out := PXE{Kernel: filepath.Join(dir, "vmlinuz"), Initrd: filepath.Join(dir, "initrd.img")}
	for _, x := range []struct{ src, dst string }{{ISOKernel, out.Kernel}, {ISOInitrd, out.Initrd}} {
		if err := extract(f, fi.Size(), x.src, x.dst); err != nil {
			return PXE{}, fmt.Errorf("%s: %w", isoPath, err)
		}
	}
	return out, nil
}

// CheckPXE reports whether the ISO holds the PXE kernel and initramfs,
// without copying them (ErrISO when it does not).
func CheckPXE(isoPath string) error {
	f, err := os.Open(isoPath)
	if err != nil {
		return fmt.Errorf("live ISO: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("live ISO: %w", err)
	}
	for _, p := range []string{ISOKernel, ISOInitrd} {
		if _, err := iso.Find(f, fi.Size(), p); err != nil {
			return fmt.Errorf("%s: %w: no %s in the ISO: %w", isoPath, ErrISO, p, err)
		}
	}
	return nil
}

// identity names an ISO version: a hash of its absolute path, size and
// modification time.
func identity(path string, fi os.FileInfo) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%d", abs, fi.Size(), fi.ModTime().UnixNano()))
	return hex.EncodeToString(sum[:12])
}

// extract copies the ISO file at src to dst unless dst already has its size.
func extract(r io.ReaderAt, size int64, src, dst string) error {
	rec, err := iso.Find(r, size, src)
	if err != nil {
		if errors.Is(err, iso.ErrNotFound) {
			return fmt.Errorf("%w: no %s in the ISO", ErrISO, src)
		}
		return fmt.Errorf("%w: %w", ErrISO, err)
	}
	if fi, err := os.Stat(dst); err == nil && fi.Mode().IsRegular() && fi.Size() == rec.Size {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*")
	if err != nil {
		return fmt.Errorf("extracting %s: %w", src, err)
	}
	defer os.Remove(tmp.Name())
	_, err = io.Copy(tmp, io.NewSectionReader(r, rec.Offset, rec.Size))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		return fmt.Errorf("extracting %s: %w", src, err)
	}
	return nil
}

// LiveArgs are the kernel arguments of a live PXE boot (seed 001's
// script): the rootfs URL, ignition.firstboot, ignition.platform.id=metal,
// then extra (the image set's and the infra-env's arguments), each
// trimmed, empty ones dropped.
func LiveArgs(rootfsURL string, extra ...string) string {
	args := []string{"coreos.live.rootfs_url=" + rootfsURL, "ignition.firstboot", "ignition.platform.id=metal"}
	for _, e := range extra {
		if e = strings.Join(strings.Fields(e), " "); e != "" {
			args = append(args, e)
		}
	}
	return strings.Join(args, " ")
}
