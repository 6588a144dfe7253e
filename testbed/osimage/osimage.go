package osimage

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

	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/internal/buildfs"
)

// Errors returned by this package.
var (
	ErrBuild     = errors.New("osimage: build")
	ErrGPT       = errors.New("osimage: bad GPT")
	ErrPartition = errors.New("osimage: no such partition")
	ErrIgnition  = errors.New("osimage: Ignition config refused")
)

// formatVersion changes whenever the image's layout changes in a way the
// inputs hashed by cacheKey do not capture.
const formatVersion = "rackboot-testbed-osimage-3-coreos-bios"

// Partition names (GPT) of the image, CoreOS's metal image's; boot and
// root are also the file system labels.
const (
	BIOSBootName = "BIOS-BOOT"
	ESPName      = "EFI-SYSTEM"
	BootName     = "boot"
	RootName     = "root"
)

// StampName is the first-boot stamp at the root of the boot file system:
// while it is there, GRUB adds ignition.firstboot to the kernel command
// line; the first boot removes it once every enabled unit succeeded.
const StampName = "ignition.firstboot"

// ConfigPath is where the installer writes the host's Ignition config on
// the boot file system (coreos-installer's place).
const ConfigPath = "ignition/config.ign"

// DefaultCmdline is the kernel arguments of the image's BLS entry, before
// ignition.platform.id=metal and $ignition_firstboot.
const DefaultCmdline = "console=ttyS0,115200 loglevel=4"

// Image is a built disk image.
type Image struct {
	Path   string // the raw disk file (read-only: copy it before writing)
	SHA256 string // hex
	Size   int64  // bytes
}

// Options are the inputs of Build. CacheDir and Ignition are required.
type Options struct {
	CacheDir string // e.g. image.DefaultCacheDir()
	Ignition string // static Ignition binary (image.BuildIgnition)
	Busybox  string // default image.DefaultBusybox
	Curl     string // default: curl found on $PATH
	Cmdline  string // the BLS entry's options; default DefaultCmdline
}

func (o Options) withDefaults() (Options, error) {
	if o.CacheDir == "" || o.Ignition == "" {
		return o, fmt.Errorf("%w: CacheDir and Ignition are required", ErrBuild)
	}
	if o.Busybox == "" {
		o.Busybox = image.DefaultBusybox
	}
	if o.Cmdline == "" {
		o.Cmdline = DefaultCmdline
	}
	if o.Curl == "" {
		p, err := lookPath("curl")
		if err != nil {
			return o, err
		}
		o.Curl = p
	}
	return o, nil
}

// Build makes the OS disk image under opts.CacheDir/osimages and returns it.
// An image already built from the same inputs (kernel package, binaries,
// libraries, GRUB, scripts, command line) is returned as it is. Concurrent
// builds into one cache directory are serialised.
func Build(ctx context.Context, opts Options) (Image, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return Image{}, err
	}
	if err := os.MkdirAll(opts.CacheDir, 0o755); err != nil {
		return Image{}, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	unlock, err := buildfs.Lock(filepath.Join(opts.CacheDir, "osimage.lock"))
	if err != nil {
		return Image{}, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	defer unlock()
	debName, err := image.KernelPackage(ctx, opts.CacheDir)
	if err != nil {
		return Image{}, err
	}
	libs, err := sharedLibs(ctx, opts.Curl)
	if err != nil {
		return Image{}, err
	}
	grubV, err := grubVersion(ctx)
	if err != nil {
		return Image{}, err
	}
	key, err := cacheKey(debName+"\n"+grubV, opts, libs)
	if err != nil {
		return Image{}, err
	}
	dir := filepath.Join(opts.CacheDir, "osimages", key)
	if img, err := readCached(dir); err == nil {
		return img, nil
	}
	if err := build(ctx, opts, libs, dir); err != nil {
		return Image{}, err
	}
	return readCached(dir)
}

// BuildFromSource compiles Ignition from the repository at repoRoot (cached,
// as image.BuildIgnition does) and builds the image with the defaults.
func BuildFromSource(ctx context.Context, repoRoot, cacheDir string) (Image, error) {
	ign, err := image.BuildIgnition(ctx, repoRoot, cacheDir)
	if err != nil {
		return Image{}, err
	}
	return Build(ctx, Options{CacheDir: cacheDir, Ignition: ign})
}

// build writes disk.img and disk.img.sha256 into dir through a temporary
// directory, so a half-built image is never seen.
func build(ctx context.Context, opts Options, libs []buildfs.Lib, dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".build-")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	defer os.RemoveAll(tmp)
	kern, err := image.FetchKernel(ctx, opts.CacheDir, tmp, osModules())
	if err != nil {
		return err
	}
	kver, err := kernelVersion(kern.Package)
	if err != nil {
		return err
	}
	initrd := filepath.Join(tmp, "initrd.img")
	if err := writeInitrdFile(initrd, initrdInputs{
		busybox: opts.Busybox, ignition: opts.Ignition, curl: opts.Curl, libs: libs, modules: kern.Modules,
	}); err != nil {
		return err
	}
	in := diskInputs{grub: filepath.Join(tmp, "BOOTX64.EFI"), core: filepath.Join(tmp, "core.img"), boot: filepath.Join(tmp, "boot"),
		root: filepath.Join(tmp, "root"), seed: filepath.Base(dir)}
	if err := makeGrub(ctx, tmp, in.grub); err != nil {
		return err
	}
	if err := makeGrubBIOS(ctx, tmp, in.core); err != nil {
		return err
	}
	if err := bootFiles(in.boot, kver, kern.Vmlinuz, initrd, opts.Cmdline); err != nil {
		return err
	}
	if err := rootFiles(in.root); err != nil {
		return err
	}
	disk := filepath.Join(tmp, "disk.img")
	if err := makeDisk(ctx, disk, in); err != nil {
		return err
	}
	sum, err := buildfs.FileSHA256(disk)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := os.WriteFile(disk+".sha256", []byte(sum+"\n"), 0o644); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := os.Chmod(disk, 0o444); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := cleanTmp(tmp, "disk.img", "disk.img.sha256"); err != nil {
		return err
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return nil
}

// cleanTmp removes everything in dir but keep.
func cleanTmp(dir string, keep ...string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	for _, e := range ents {
		if !contains(keep, e.Name()) {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
	return os.Chmod(dir, 0o755)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// readCached returns the image in dir when it is complete.
func readCached(dir string) (Image, error) {
	path := filepath.Join(dir, "disk.img")
	st, err := os.Stat(path)
	if err != nil {
		return Image{}, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	sum, err := os.ReadFile(path + ".sha256")
	if err != nil {
		return Image{}, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return Image{Path: path, SHA256: strings.TrimSpace(string(sum)), Size: st.Size()}, nil
}

// cacheKey names an image by everything that goes into it.
func cacheKey(debName string, opts Options, libs []buildfs.Lib) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n", formatVersion, debName, strings.Join(osModules(), " "), opts.Cmdline)
	io.WriteString(h, initScript())
	io.WriteString(h, grubCfg)
	fmt.Fprintf(h, "%s\n%s\n", strings.Join(grubModules, " "), blsEntry("V", opts.Cmdline))
	for _, f := range image.DiscoveryFiles() {
		fmt.Fprintf(h, "%s %o\n%s", f.Name, f.Mode, f.Body)
	}
	files := []string{opts.Busybox, opts.Ignition, opts.Curl, filepath.Join(GrubPCDir, "boot.img"), filepath.Join(GrubPCDir, "kernel.img")}
	for _, l := range libs {
		fmt.Fprintf(h, "lib %s\n", l.Name)
		files = append(files, l.Src)
	}
	for _, f := range files {
		if err := buildfs.HashFile(h, f); err != nil {
			return "", fmt.Errorf("%w: %w", ErrBuild, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}
