package image

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// kernelMeta is the Debian package that linux-image-amd64 points at.
const kernelMeta = "linux-image-amd64"

// kernelDeb returns the path of the current kernel package in dir,
// downloading it when needed. When apt knows no kernel package (its lists
// were never fetched on this machine) it runs apt-get update once; when apt
// fails altogether, a kernel package downloaded earlier is used.
func kernelDeb(ctx context.Context, dir string) (string, error) {
	pkg, err := kernelPackage(ctx)
	if err != nil {
		if out, uerr := exec.CommandContext(ctx, "apt-get", "update", "-q").CombinedOutput(); uerr != nil {
			err = fmt.Errorf("%w; apt-get update: %w: %s", err, uerr, lastLine(out))
		} else {
			pkg, err = kernelPackage(ctx)
		}
	}
	var deb string
	if err == nil {
		deb, err = downloadDeb(ctx, pkg, dir)
	}
	if err != nil {
		if cached := newestCached(dir); cached != "" {
			return cached, nil
		}
		return "", err
	}
	return deb, nil
}

// newestCached is the last kernel package (by name) already in dir, or "".
func newestCached(dir string) string {
	m, _ := filepath.Glob(filepath.Join(dir, "linux-image-*.deb"))
	if len(m) == 0 {
		return ""
	}
	sort.Strings(m)
	return m[len(m)-1]
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// kernelPackage returns the versioned kernel package, such as
// linux-image-6.1.0-56-amd64, from the local apt lists.
func kernelPackage(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "apt-cache", "depends", kernelMeta).Output()
	if err != nil {
		return "", fmt.Errorf("%w: apt-cache depends %s: %w (run apt-get update)", ErrKernelPackage, kernelMeta, err)
	}
	return parseDepends(string(out))
}

func parseDepends(out string) (string, error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "Depends:" && strings.HasPrefix(f[1], "linux-image-") {
			return f[1], nil
		}
	}
	return "", fmt.Errorf("%w: no linux-image dependency in apt-cache output", ErrKernelPackage)
}

// debURI is one line of `apt-get download --print-uris`.
type debURI struct {
	file   string
	size   int64
	sha256 string
}

func parsePrintURIs(out string) (debURI, error) {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasSuffix(f[1], ".deb") {
			continue
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			continue
		}
		d := debURI{file: f[1], size: size}
		if h, ok := strings.CutPrefix(f[3], "SHA256:"); ok {
			d.sha256 = h
		}
		if strings.ContainsAny(d.file, "/\\") || d.file == ".." {
			return debURI{}, fmt.Errorf("%w: odd file name %q", ErrKernelPackage, d.file)
		}
		return d, nil
	}
	return debURI{}, fmt.Errorf("%w: apt-get printed no .deb", ErrKernelPackage)
}

// downloadDeb fetches pkg into dir unless the same file is already there,
// and returns its path.
func downloadDeb(ctx context.Context, pkg, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("image: %w", err)
	}
	out, err := exec.CommandContext(ctx, "apt-get", "download", "--print-uris", pkg).Output()
	if err != nil {
		return "", fmt.Errorf("%w: apt-get download --print-uris %s: %w", ErrKernelPackage, pkg, err)
	}
	uri, err := parsePrintURIs(string(out))
	if err != nil {
		return "", err
	}
	dst := filepath.Join(dir, uri.file)
	if st, err := os.Stat(dst); err == nil && st.Size() == uri.size {
		return dst, nil
	}
	tmp, err := os.MkdirTemp(dir, ".dl-")
	if err != nil {
		return "", fmt.Errorf("image: %w", err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, "apt-get", "download", pkg)
	cmd.Dir = tmp
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w: apt-get download %s: %w: %s", ErrKernelPackage, pkg, err, bytes.TrimSpace(msg))
	}
	got := filepath.Join(tmp, uri.file)
	if err := checkSHA256(got, uri.sha256); err != nil {
		return "", err
	}
	if err := os.Rename(got, dst); err != nil {
		return "", fmt.Errorf("image: %w", err)
	}
	return dst, nil
}

func checkSHA256(file, want string) error {
	if want == "" {
		return nil
	}
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%w: %s has sha256 %s, apt says %s", ErrKernelPackage, filepath.Base(file), got, want)
	}
	return nil
}

// kernelFiles are the files extractKernel wrote.
type kernelFiles struct {
	kernel  string            // path of the bzImage
	modules map[string]string // module name -> path of its .ko
}

// extractKernel streams the data tarball of deb (dpkg-deb --fsys-tarfile)
// and writes boot/vmlinuz-* and the named modules into dir.
func extractKernel(ctx context.Context, deb, dir string, want []string) (kernelFiles, error) {
	cmd := exec.CommandContext(ctx, "dpkg-deb", "--fsys-tarfile", deb)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return kernelFiles{}, fmt.Errorf("image: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return kernelFiles{}, fmt.Errorf("image: dpkg-deb: %w", err)
	}
	kf, terr := pickFiles(tar.NewReader(stdout), dir, want)
	io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		return kernelFiles{}, fmt.Errorf("image: dpkg-deb --fsys-tarfile %s: %w: %s", deb, err, bytes.TrimSpace(stderr.Bytes()))
	}
	if terr != nil {
		return kernelFiles{}, terr
	}
	return kf, checkComplete(kf, want)
}

func pickFiles(tr *tar.Reader, dir string, want []string) (kernelFiles, error) {
	wanted := map[string]bool{}
	for _, m := range want {
		wanted[m+".ko"] = true
	}
	kf := kernelFiles{modules: map[string]string{}}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return kf, nil
		}
		if err != nil {
			return kf, fmt.Errorf("image: reading kernel package: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		name := path.Clean(strings.TrimPrefix(hdr.Name, "./"))
		base := path.Base(name)
		switch {
		case strings.HasPrefix(name, "boot/vmlinuz-"):
			kf.kernel = filepath.Join(dir, "kernel")
			err = writeFile(kf.kernel, tr)
		case wanted[base] && strings.Contains(name, "lib/modules/"):
			mod := strings.TrimSuffix(base, ".ko")
			kf.modules[mod] = filepath.Join(dir, base)
			err = writeFile(kf.modules[mod], tr)
		}
		if err != nil {
			return kf, err
		}
	}
}

func checkComplete(kf kernelFiles, want []string) error {
	var missing []string
	if kf.kernel == "" {
		missing = append(missing, "boot/vmlinuz-*")
	}
	for _, m := range want {
		if _, ok := kf.modules[m]; !ok {
			missing = append(missing, m+".ko")
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("%w: %s", ErrKernelFile, strings.Join(missing, ", "))
	}
	return nil
}

func writeFile(name string, r io.Reader) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return fmt.Errorf("image: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	return nil
}
