package systemdvm

import (
	"bufio"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Suite is the Debian release the VM's root file system comes from.
const Suite = "bookworm"

// Packages are installed with debootstrap's minbase variant: systemd as
// PID 1, Debian's kernel and initramfs, what rackboot's package depends on
// (ipxe), and what the tests run inside (ip, busybox udhcpc, curl).
var Packages = []string{
	"systemd", "systemd-sysv", "udev", "kmod", "linux-image-amd64", "initramfs-tools",
	"iproute2", "busybox", "curl", "procps", "ipxe",
}

// imageVersion changes when customize changes what it writes.
const imageVersion = "1"

//go:embed files
var files embed.FS

// ErrBuild is returned when the root file system cannot be built.
var ErrBuild = errors.New("systemdvm: building the root file system")

// Image is a cached, bootable Debian: the kernel, its initramfs and an ext4
// root file system image (used read-only: the VM writes to a snapshot).
type Image struct {
	Kernel string
	Initrd string
	Root   string
}

// Build returns the image in cacheDir, building it first when it is not
// there (about 4 minutes: debootstrap from the Debian mirror, then
// mkfs.ext4 -d, no mount). The packages debootstrap downloads are kept in
// cacheDir/debs for the next build.
func Build(ctx context.Context, cacheDir, mirror string) (Image, error) {
	key, err := cacheKey()
	if err != nil {
		return Image{}, err
	}
	dir := filepath.Join(cacheDir, key)
	img := Image{
		Kernel: filepath.Join(dir, "vmlinuz"),
		Initrd: filepath.Join(dir, "initrd.img"),
		Root:   filepath.Join(dir, "root.img"),
	}
	if _, err := os.Stat(img.Root); err == nil {
		return img, nil
	}
	tree := dir + ".build"
	if err := os.RemoveAll(tree); err != nil {
		return Image{}, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	defer os.RemoveAll(tree)
	debs := filepath.Join(cacheDir, "debs")
	if err := os.MkdirAll(debs, 0o755); err != nil {
		return Image{}, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Image{}, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := run(ctx, "debootstrap", "--variant=minbase", "--cache-dir="+debs,
		"--include="+strings.Join(Packages, ","), Suite, tree, mirror); err != nil {
		return Image{}, err
	}
	if err := customize(tree); err != nil {
		return Image{}, err
	}
	if err := takeBoot(tree, img); err != nil {
		return Image{}, err
	}
	tmp := img.Root + ".tmp"
	if err := run(ctx, "mkfs.ext4", "-q", "-F", "-L", "rackboot-root", "-d", tree, tmp, "3G"); err != nil {
		return Image{}, err
	}
	if err := os.Rename(tmp, img.Root); err != nil {
		return Image{}, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return img, nil
}

// cacheKey names an image by what goes into it.
func cacheKey() (string, error) {
	h := sha256.New()
	fmt.Fprintln(h, imageVersion, Suite, strings.Join(Packages, " "))
	err := fs.WalkDir(files, "files", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(path)
		fmt.Fprintln(h, path, len(data))
		h.Write(data)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return "debian-" + Suite + "-" + hex.EncodeToString(h.Sum(nil))[:12], nil
}

// customize makes the debootstrapped tree boot from /dev/vda with the
// command runner enabled and the periodic jobs (apt, fstrim...) masked, so
// nothing but the test runs.
func customize(tree string) error {
	write := func(path, text string, mode os.FileMode) error {
		p := filepath.Join(tree, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(text), mode)
	}
	link := func(target, path string) error {
		p := filepath.Join(tree, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		os.Remove(p)
		return os.Symlink(target, p)
	}
	steps := []error{
		write("etc/fstab", "/dev/vda / ext4 rw,errors=remount-ro 0 1\n", 0o644),
		write("etc/hostname", "rackboot-vm\n", 0o644),
		copyEmbedded(tree, "files/rackboot-testrunner", "usr/local/sbin/rackboot-testrunner", 0o755),
		copyEmbedded(tree, "files/rackboot-testrunner.service", "etc/systemd/system/rackboot-testrunner.service", 0o644),
		copyEmbedded(tree, "files/udhcpc-script", "usr/local/sbin/udhcpc-script", 0o755),
		link("/etc/systemd/system/rackboot-testrunner.service", "etc/systemd/system/multi-user.target.wants/rackboot-testrunner.service"),
	}
	for _, timer := range []string{"apt-daily", "apt-daily-upgrade", "dpkg-db-backup", "e2scrub_all", "fstrim"} {
		steps = append(steps, link("/dev/null", "etc/systemd/system/"+timer+".timer"))
	}
	if err := errors.Join(steps...); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return nil
}

func copyEmbedded(tree, name, path string, mode os.FileMode) error {
	data, err := files.ReadFile(name)
	if err != nil {
		return err
	}
	p := filepath.Join(tree, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, mode)
}

// takeBoot copies the kernel and the initramfs Debian's packages made.
func takeBoot(tree string, img Image) error {
	for pattern, dst := range map[string]string{"vmlinuz-*": img.Kernel, "initrd.img-*": img.Initrd} {
		m, _ := filepath.Glob(filepath.Join(tree, "boot", pattern))
		if len(m) != 1 {
			return fmt.Errorf("%w: want one /boot/%s, found %v", ErrBuild, pattern, m)
		}
		data, err := os.ReadFile(m[0])
		if err != nil {
			return fmt.Errorf("%w: %w", ErrBuild, err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return fmt.Errorf("%w: %w", ErrBuild, err)
		}
	}
	return nil
}

func run(ctx context.Context, name string, args ...string) error {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s: %w\n%s", ErrBuild, name, err, tail(string(out), 30))
	}
	return nil
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Mirror is the Debian archive apt is configured with here (the first
// "URIs:" of a .sources file, or the first "deb" line of a .list file,
// that is not the security archive), else deb.debian.org.
func Mirror() string {
	paths, _ := filepath.Glob("/etc/apt/sources.list.d/*.sources")
	lists, _ := filepath.Glob("/etc/apt/sources.list.d/*.list")
	paths = append(append(paths, "/etc/apt/sources.list"), lists...)
	for _, p := range paths {
		if uri := mirrorIn(p); uri != "" {
			return uri
		}
	}
	return "http://deb.debian.org/debian"
}

func mirrorIn(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		var uri string
		switch {
		case len(f) >= 2 && f[0] == "URIs:":
			uri = f[1]
		case len(f) >= 3 && f[0] == "deb" && !strings.HasPrefix(f[1], "["):
			uri = f[1]
		}
		if strings.HasSuffix(strings.TrimSuffix(uri, "/"), "/debian") {
			return uri
		}
	}
	return ""
}
