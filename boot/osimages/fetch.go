package osimages

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"

	"github.com/rackboot/rackboot/boot/coreos"
)

// Set is an entry's files, local: what an image set's live_iso and
// live_rootfs name.
type Set struct {
	Name    string
	Version string // openshiftVersion
	Arch    string // x86_64 or aarch64
	ISO     string
	Rootfs  string
}

// Fetcher makes an entry's artifacts local files.
type Fetcher struct {
	Dir    string       // where downloads go (created when needed)
	Client *http.Client // nil: http.DefaultClient
}

// Resolve fetches img's ISO and rootfs (see the package doc) and checks
// that the ISO holds the PXE kernel and initramfs.
func (f *Fetcher) Resolve(ctx context.Context, img OSImage) (Set, error) {
	s := Set{Name: Name(img), Version: img.OpenshiftVersion, Arch: arch(img)}
	var err error
	if s.ISO, err = f.fetch(ctx, img.URL); err != nil {
		return Set{}, fmt.Errorf("osImages %s: url: %w", s.Name, err)
	}
	if s.Rootfs, err = f.fetch(ctx, img.RootFSURL); err != nil {
		return Set{}, fmt.Errorf("osImages %s: rootFSUrl: %w", s.Name, err)
	}
	if err := coreos.CheckPXE(s.ISO); err != nil {
		return Set{}, fmt.Errorf("osImages %s: url %s: %w", s.Name, safe(img.URL), err)
	}
	return s, nil
}

// source is where an artifact comes from: a local path, or a URL.
type source struct {
	path string
	url  *url.URL
}

func parseSource(raw string) (source, error) {
	if filepath.IsAbs(raw) {
		return source{path: filepath.Clean(raw)}, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return source{}, fmt.Errorf("%s is not a URL", safe(raw))
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" || !filepath.IsAbs(u.Path) {
			return source{}, fmt.Errorf("%s is not a local file URL (file:///path)", safe(raw))
		}
		return source{path: filepath.Clean(u.Path)}, nil
	case "http", "https":
		if u.Host == "" {
			return source{}, fmt.Errorf("%s has no host", safe(raw))
		}
		return source{url: u}, nil
	}
	return source{}, fmt.Errorf("%s is not an absolute path or a file, http or https URL", safe(raw))
}

// fetch returns the local file of raw.
func (f *Fetcher) fetch(ctx context.Context, raw string) (string, error) {
	src, err := parseSource(raw)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBad, err)
	}
	if src.path != "" {
		fi, err := os.Stat(src.path)
		if err != nil {
			return "", err
		}
		if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("%s is not a regular file", src.path)
		}
		return src.path, nil
	}
	sum := sha256.Sum256([]byte(raw))
	dir := filepath.Join(f.Dir, hex.EncodeToString(sum[:8]))
	base := path.Base(src.url.Path)
	if base == "/" || base == "." {
		base = "artifact"
	}
	dst := filepath.Join(dir, base)
	if fi, err := os.Stat(dst); err == nil && fi.Mode().IsRegular() {
		return dst, nil // downloaded before
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("download directory: %w", err)
	}
	if err := f.download(ctx, src.url, dst); err != nil {
		return "", fmt.Errorf("downloading %s: %w", safe(raw), err)
	}
	return dst, nil
}

// download writes the body of u to dst, under a temporary name renamed
// when complete.
func (f *Fetcher) download(ctx context.Context, u *url.URL, dst string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	c := f.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its message repeats the URL, query included
		}
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the server answered %s", resp.Status)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".download-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename: nothing
	_, err = io.Copy(tmp, resp.Body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// safe is raw without credentials or query, for errors and logs.
func safe(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
