package osimage

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cavaliergopher/cpio"

	"github.com/rackboot/rackboot/testbed/image"
)

//go:embed files/init
var initTemplate string

// Where the OS initrd puts its programs.
const (
	IgnitionPath = image.IgnitionPath // usr/bin/ignition
	CurlPath     = "usr/bin/curl"
	BusyboxPath  = "bin/busybox"
)

// ext4Modules are the modules the OS loads after image.Modules() to mount
// the boot file system, in load order (jbd2 and ext4 ask the crypto API
// for crc32c, which nothing would load for them).
var ext4Modules = []string{"crc32c_generic", "crc16", "mbcache", "jbd2", "ext4"}

// osModules are the kernel modules of the OS initrd, in load order.
func osModules() []string { return append(image.Modules(), ext4Modules...) }

// initScript is /init with the module order, the boot file system's label,
// the stamp's and the config's paths filled in.
func initScript() string {
	return strings.NewReplacer(
		"@MODULES@", strings.Join(osModules(), " "),
		"@BOOT_LABEL@", BootName,
		"@STAMP@", StampName,
		"@CONFIG@", ConfigPath,
	).Replace(initTemplate)
}

// lib is a shared library curl needs: name is its path in the initrd (the
// path the dynamic loader looks for), src the host file it is copied from.
type lib struct {
	name string
	src  string
}

// sharedLibs runs ldd on bin and returns the libraries it links, the
// dynamic loader included, with their symlinks resolved.
func sharedLibs(ctx context.Context, bin string) ([]lib, error) {
	out, err := exec.CommandContext(ctx, "ldd", bin).Output()
	if err != nil {
		return nil, fmt.Errorf("%w: ldd %s: %w", ErrBuild, bin, err)
	}
	paths, err := parseLdd(string(out))
	if err != nil {
		return nil, err
	}
	libs := make([]lib, 0, len(paths))
	for _, p := range paths {
		src, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBuild, err)
		}
		libs = append(libs, lib{name: strings.TrimPrefix(path.Clean(p), "/"), src: src})
	}
	return libs, nil
}

// parseLdd returns the absolute library paths of ldd's output, sorted. A
// library ldd could not find is an error; the vDSO has no file and is left
// out.
func parseLdd(out string) ([]string, error) {
	var paths []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.Contains(line, "statically linked") {
			continue
		}
		if strings.Contains(line, "not found") {
			return nil, fmt.Errorf("%w: ldd: %s", ErrBuild, line)
		}
		f := strings.Fields(line)
		p := f[0]
		if len(f) >= 3 && f[1] == "=>" {
			p = f[2]
		}
		if !strings.HasPrefix(p, "/") {
			continue // linux-vdso.so.1 (0x...)
		}
		if strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") {
			return nil, fmt.Errorf("%w: ldd: odd path %q", ErrBuild, p)
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: ldd listed no libraries", ErrBuild)
	}
	sort.Strings(paths)
	return paths, nil
}

// initrdInputs are the host files that go into the OS initrd.
type initrdInputs struct {
	busybox, ignition, curl string
	libs                    []lib
	modules                 map[string]string // name -> .ko
}

// extraDirs are created in the initrd besides the parents of its files.
var extraDirs = []string{"boot", "dev", "home", "proc", "root", "run", "sbin", "sys", "tmp", "var", "var/log",
	"etc/systemd/system", "usr/local/bin", "usr/local/sbin"}

// entry is one file of the initrd: from the host (src) or literal (body).
type entry struct {
	name string
	mode cpio.FileMode
	src  string
	body string
}

func (in initrdInputs) entries() ([]entry, error) {
	es := []entry{
		{name: BusyboxPath, mode: 0o755, src: in.busybox},
		{name: "init", mode: 0o755, body: initScript()},
		{name: IgnitionPath, mode: 0o755, src: in.ignition},
		{name: CurlPath, mode: 0o755, src: in.curl},
	}
	for _, f := range image.DiscoveryFiles() {
		es = append(es, entry{name: f.Name, mode: cpio.FileMode(f.Mode), body: f.Body})
	}
	for _, l := range in.libs {
		es = append(es, entry{name: l.name, mode: 0o755, src: l.src})
	}
	for _, m := range osModules() {
		ko, ok := in.modules[m]
		if !ok {
			return nil, fmt.Errorf("%w: module %s has no file", ErrBuild, m)
		}
		es = append(es, entry{name: "lib/modules/" + m + ".ko", mode: 0o644, src: ko})
	}
	return es, nil
}

// dirsOf returns every directory the entries need, parents first.
func dirsOf(es []entry) []string {
	seen := map[string]bool{}
	var dirs []string
	add := func(d string) {
		for ; d != "." && d != "/" && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	for _, d := range extraDirs {
		add(d)
	}
	for _, e := range es {
		add(path.Dir(e.name))
	}
	sort.Strings(dirs) // a parent sorts before its children
	return dirs
}

// writeInitrdFile writes the OS initrd, a gzip newc cpio, to name. The
// output depends only on the inputs' contents.
func writeInitrdFile(name string, in initrdInputs) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := writeInitrd(f, in); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return nil
}

func writeInitrd(w io.Writer, in initrdInputs) error {
	es, err := in.entries()
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBuild, err)
	}
	cw := cpio.NewWriter(zw)
	for _, d := range dirsOf(es) {
		if err := cw.WriteHeader(&cpio.Header{Name: d, Mode: cpio.TypeDir | 0o755, Links: 2}); err != nil {
			return fmt.Errorf("%w: initrd: %w", ErrBuild, err)
		}
	}
	for _, e := range es {
		if err := addEntry(cw, e); err != nil {
			return err
		}
	}
	if err := cw.Close(); err != nil {
		return fmt.Errorf("%w: initrd: %w", ErrBuild, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("%w: initrd: %w", ErrBuild, err)
	}
	return nil
}

func addEntry(cw *cpio.Writer, e entry) error {
	var r io.Reader = strings.NewReader(e.body)
	size := int64(len(e.body))
	if e.src != "" {
		b, err := os.ReadFile(e.src)
		if err != nil {
			return fmt.Errorf("%w: initrd: %w", ErrBuild, err)
		}
		r, size = bytes.NewReader(b), int64(len(b))
	}
	hdr := &cpio.Header{Name: e.name, Mode: cpio.TypeReg | e.mode.Perm(), Size: size}
	if err := cw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("%w: initrd: %s: %w", ErrBuild, e.name, err)
	}
	if _, err := io.Copy(cw, r); err != nil {
		return fmt.Errorf("%w: initrd: %s: %w", ErrBuild, e.name, err)
	}
	return nil
}

func lookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBuild, err)
	}
	return filepath.EvalSymlinks(p)
}
