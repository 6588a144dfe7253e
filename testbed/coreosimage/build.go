package coreosimage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rackboot/rackboot/testbed/image"
	"github.com/rackboot/rackboot/testbed/internal/buildfs"
	"github.com/rackboot/rackboot/testbed/isoimage"
	"github.com/rackboot/rackboot/testbed/osimage"
)

// format changes whenever the mirror's layout changes in a way the hashed
// inputs do not capture.
const format = "rackboot-testbed-coreos-1 xz-3"

// LiveKargs are the ISO's kernel arguments after CoreOS's own: the serial
// console the tests read, and no_timer_check, without which a TCG guest on
// a loaded host can panic early ("IO-APIC + timer doesn't work").
const LiveKargs = "console=ttyS0 no_timer_check"

// Inputs are what Build publishes: the real Ignition binary and the metal
// image (testbed/osimage). Busybox and the kernel are the testbed's
// (image.DefaultBusybox, Debian's kernel package).
type Inputs struct {
	Ignition string
	Metal    osimage.Image
}

// Names of the files in the mirror (as a stream's locations' base names).
const (
	isoName       = "rackboot-testbed-live." + Arch + ".iso"
	kernelName    = "rackboot-testbed-live-kernel-" + Arch
	initrdName    = "rackboot-testbed-live-initramfs." + Arch + ".img"
	rootfsName    = "rackboot-testbed-live-rootfs." + Arch + ".img"
	metalName     = "rackboot-testbed-metal." + Arch + ".raw.xz"
	streamFile    = "stream.json"
	mirrorsSubdir = "coreos"
)

// BuildFromSource builds Ignition and the metal image (osimage) from the
// repository at repoRoot, then the mirror, all under cacheDir.
func BuildFromSource(ctx context.Context, repoRoot, cacheDir string) (Mirror, error) {
	ign, err := image.BuildIgnition(ctx, repoRoot, cacheDir)
	if err != nil {
		return Mirror{}, err
	}
	metal, err := osimage.BuildFromSource(ctx, repoRoot, cacheDir)
	if err != nil {
		return Mirror{}, err
	}
	return Build(ctx, cacheDir, Inputs{Ignition: ign, Metal: metal})
}

// Build publishes the mirror under cacheDir/coreos/<key>, key naming every
// input by content; a mirror already there is reused. Concurrent builds
// into one cacheDir are serialised.
func Build(ctx context.Context, cacheDir string, in Inputs) (Mirror, error) {
	base := filepath.Join(cacheDir, mirrorsSubdir)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return Mirror{}, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	unlock, err := buildfs.Lock(filepath.Join(base, "lock"))
	if err != nil {
		return Mirror{}, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	defer unlock()
	deb, err := image.KernelPackage(ctx, cacheDir)
	if err != nil {
		return Mirror{}, err
	}
	key, err := mirrorKey(deb, in)
	if err != nil {
		return Mirror{}, err
	}
	dir := filepath.Join(base, key)
	if m, err := ReadMirror(filepath.Join(dir, streamFile)); err == nil {
		m.Label = label(key)
		return m, nil
	}
	tmp, err := os.MkdirTemp(base, ".build-")
	if err != nil {
		return Mirror{}, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	defer os.RemoveAll(tmp)
	if err := publish(ctx, cacheDir, tmp, key, in); err != nil {
		return Mirror{}, err
	}
	os.RemoveAll(dir)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return Mirror{}, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return Mirror{}, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	m, err := ReadMirror(filepath.Join(dir, streamFile))
	m.Label = label(key)
	return m, err
}

// label is the live ISO's volume label for a mirror key.
func label(key string) string { return "rackboot-live-" + key[:12] }

// publish writes every artifact and stream.json into dir.
func publish(ctx context.Context, cacheDir, dir, key string, in Inputs) error {
	work := filepath.Join(dir, ".work")
	if err := os.Mkdir(work, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	defer os.RemoveAll(work)
	m := Mirror{Dir: dir, Release: "testbed." + key[:12], Label: label(key),
		ISO: Artifact{Path: filepath.Join(dir, isoName)}, Kernel: Artifact{Path: filepath.Join(dir, kernelName)},
		Initrd: Artifact{Path: filepath.Join(dir, initrdName)}, Rootfs: Artifact{Path: filepath.Join(dir, rootfsName)},
		Metal: Artifact{Path: filepath.Join(dir, metalName)}, MetalUncompressedSHA256: in.Metal.SHA256}
	k, err := image.FetchKernel(ctx, cacheDir, work, allModules())
	if err != nil {
		return err
	}
	if err := os.Rename(k.Vmlinuz, m.Kernel.Path); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := writeRootfs(ctx, m.Rootfs.Path, RootfsPrograms); err != nil {
		return err
	}
	if m.Rootfs.SHA256, err = buildfs.FileSHA256(m.Rootfs.Path); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	err = writeInitramfs(m.Initrd.Path, initramfsInputs{busybox: image.DefaultBusybox, ignition: in.Ignition,
		modules: k.Modules, rootfsSHA256: m.Rootfs.SHA256})
	if err != nil {
		return err
	}
	iso, err := isoimage.BuildLive(ctx, cacheDir, isoimage.Live{Label: m.Label, Kernel: m.Kernel.Path,
		Initrd: m.Initrd.Path, Rootfs: m.Rootfs.Path, Kargs: LiveKargs})
	if err != nil {
		return err
	}
	if err := linkOrCopy(iso, m.ISO.Path); err != nil {
		return err
	}
	if err := xzFile(ctx, in.Metal.Path, m.Metal.Path); err != nil {
		return err
	}
	for _, a := range []*Artifact{&m.ISO, &m.Kernel, &m.Initrd, &m.Metal} {
		if a.SHA256, err = buildfs.FileSHA256(a.Path); err != nil {
			return fmt.Errorf("%w: %w", ErrBuild, err)
		}
	}
	return writeStream(filepath.Join(dir, streamFile), m)
}

// mirrorKey names a mirror by everything that goes into it.
func mirrorKey(debName string, in Inputs) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n%s\n", format, debName, strings.Join(allModules(), " "), LiveKargs, in.Metal.SHA256)
	io.WriteString(h, liveInit())
	io.WriteString(h, LiveRootfsScript)
	for _, f := range image.DiscoveryFiles() {
		fmt.Fprintf(h, "%s %o\n%s", f.Name, f.Mode, f.Body)
	}
	files := append([]string{image.DefaultBusybox, in.Ignition}, RootfsPrograms...)
	for _, f := range files {
		if err := buildfs.HashFile(h, f); err != nil {
			return "", fmt.Errorf("%w: %w", ErrBuild, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

// xzFile compresses src into dst with xz (xz-utils), as CoreOS publishes
// its metal images.
func xzFile(ctx context.Context, src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	var msg strings.Builder
	cmd := exec.CommandContext(ctx, "xz", "-c", "-3", "-T2")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, &msg
	err = cmd.Run()
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%w: xz %s: %w: %s", ErrBuild, src, err, msg.String())
	}
	return nil
}

func linkOrCopy(src, dst string) error {
	if os.Link(src, dst) == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return nil
}
