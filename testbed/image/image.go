package image

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rackboot/rackboot/testbed/internal/buildfs"
)

// Errors returned by Build.
var (
	ErrKernelPackage = errors.New("image: cannot find the kernel package")
	ErrKernelFile    = errors.New("image: file missing from the kernel package")
)

// formatVersion changes whenever the layout of the built image changes in a
// way the inputs below do not capture.
const formatVersion = "rackboot-testbed-image-1"

// DefaultBusybox is the statically linked busybox of Debian's busybox-static.
const DefaultBusybox = "/bin/busybox"

// Modules are loaded by /init in this order (the order matters: each needs
// the ones before it).
var modules = []string{
	"virtio_ring", "virtio", "virtio_pci_legacy_dev", "virtio_pci_modern_dev",
	"virtio_pci", "failover", "net_failover", "virtio_net", "virtio_blk",
}

// Modules returns the kernel modules the image loads, in load order.
func Modules() []string { return append([]string(nil), modules...) }

// Artifacts are the paths of a built image.
type Artifacts struct {
	Kernel string // bzImage
	Initrd string // gzip newc cpio
}

// Build makes the test boot image under cacheDir and returns its paths. It
// downloads Debian's current linux-image-*-amd64 package with apt-get (once;
// the .deb is kept in cacheDir/debs) and reuses an image already built from
// the same inputs. Concurrent builds into one cacheDir are serialised.
func Build(ctx context.Context, cacheDir string) (Artifacts, error) {
	name := func(debName string) (string, error) { return cacheKey(debName, DefaultBusybox) }
	write := func(w io.Writer, mods map[string]string) error {
		return WriteInitrd(w, InitrdInputs{Busybox: DefaultBusybox, Modules: mods, Order: modules})
	}
	return cachedBuild(ctx, cacheDir, name, modules, write)
}

// cachedBuild is Build's cache: under cacheDir's lock,
// it fetches the kernel package, names the image with name (from the
// package's file name and whatever else goes into the image) and returns
// the image of that name, building it first when it is not there.
func cachedBuild(ctx context.Context, cacheDir string, name func(debName string) (string, error), mods []string, write writeFunc) (Artifacts, error) {
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return Artifacts{}, fmt.Errorf("image: %w", err)
	}
	unlock, err := buildfs.Lock(filepath.Join(cacheDir, "lock"))
	if err != nil {
		return Artifacts{}, fmt.Errorf("image: %w", err)
	}
	defer unlock()

	deb, err := kernelDeb(ctx, filepath.Join(cacheDir, "debs"))
	if err != nil {
		return Artifacts{}, err
	}
	key, err := name(filepath.Base(deb))
	if err != nil {
		return Artifacts{}, err
	}
	dir := filepath.Join(cacheDir, "images", key)
	art := Artifacts{Kernel: filepath.Join(dir, "vmlinuz"), Initrd: filepath.Join(dir, "initrd.img")}
	if exists(art.Kernel) && exists(art.Initrd) {
		return art, nil
	}
	if err := build(ctx, deb, dir, mods, write); err != nil {
		return Artifacts{}, err
	}
	return art, nil
}

// writeFunc writes an initrd given the extracted modules (name -> .ko path).
type writeFunc func(w io.Writer, mods map[string]string) error

// build extracts the kernel and the modules mods from deb and writes both
// artifacts (vmlinuz, initrd.img) into dir through a temporary directory, so
// a half-built image is never seen.
func build(ctx context.Context, deb, dir string, mods []string, write writeFunc) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".build-")
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	defer os.RemoveAll(tmp)
	kfiles, err := extractKernel(ctx, deb, tmp, mods)
	if err != nil {
		return err
	}
	if err := os.Rename(kfiles.kernel, filepath.Join(tmp, "vmlinuz")); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	f, err := os.Create(filepath.Join(tmp, "initrd.img"))
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	if err := write(f, kfiles.modules); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	for _, m := range kfiles.modules {
		os.Remove(m)
	}
	os.RemoveAll(dir)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	return nil
}

// cacheKey names an image by everything that goes into it.
func cacheKey(debName, busybox string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", formatVersion, debName, strings.Join(modules, " "))
	io.WriteString(h, initScript(modules))
	io.WriteString(h, udhcpcScript)
	f, err := os.Open(busybox)
	if err != nil {
		return "", fmt.Errorf("image: busybox: %w", err)
	}
	defer f.Close()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("image: busybox: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

func exists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Size() > 0
}

// ErrNoRepo is returned by RepoRoot outside the rackboot source tree.
var ErrNoRepo = errors.New("image: not inside the rackboot repository")

// RepoRoot walks up from the working directory to the directory holding
// rackboot's go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("image: %w", err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/rackboot/rackboot\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNoRepo
		}
		dir = parent
	}
}

// DefaultCacheDir is $RACKBOOT_CACHE, else <repo>/.cache/testbed.
func DefaultCacheDir() (string, error) {
	if d := os.Getenv("RACKBOOT_CACHE"); d != "" {
		return d, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".cache", "testbed"), nil
}
