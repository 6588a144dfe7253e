package osimages

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rackboot/rackboot/boot/coreos"
	"github.com/rackboot/rackboot/boot/coreos/coreostest"
)

// mirror serves dir on loopback, counting requests.
func mirror(t *testing.T, dir string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// An entry whose URLs point at a mirror is downloaded once into the
// fetcher's directory, byte for byte, and reused; local paths and
// file:// URLs are used in place.
func TestResolveDownloadsFromAMirrorOnce(t *testing.T) {
	m := coreostest.NewMirror(t)
	srv, requests := mirror(t, m.Dir)
	f := &Fetcher{Dir: t.TempDir()}
	img := OSImage{OpenshiftVersion: "4.16", CPUArchitecture: "aarch64",
		URL:       srv.URL + "/" + filepath.Base(m.ISO["aarch64"]),
		RootFSURL: srv.URL + "/" + filepath.Base(m.RootfsFile["aarch64"]) + "?sig=abc"}
	s, err := f.Resolve(t.Context(), img)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "ocp-4.16-aarch64" || s.Arch != "aarch64" || s.Version != "4.16" ||
		!strings.HasPrefix(s.ISO, f.Dir) || !strings.HasPrefix(s.Rootfs, f.Dir) {
		t.Errorf("set %+v", s)
	}
	for got, want := range map[string]string{s.ISO: m.ISO["aarch64"], s.Rootfs: m.RootfsFile["aarch64"]} {
		if !bytes.Equal(read(t, got), read(t, want)) {
			t.Errorf("%s differs from the mirror's %s", got, want)
		}
	}
	if _, err := coreos.ExtractPXE(s.ISO, t.TempDir()); err != nil {
		t.Errorf("the downloaded ISO: %v", err)
	}
	before := requests.Load()
	if again, err := f.Resolve(t.Context(), img); err != nil || again != s || requests.Load() != before {
		t.Errorf("second resolve: %+v %v, %d more requests", again, err, requests.Load()-before)
	}
	local := OSImage{OpenshiftVersion: "4.16", URL: m.ISO["x86_64"], RootFSURL: "file://" + m.RootfsFile["x86_64"]}
	if s, err := f.Resolve(t.Context(), local); err != nil || s.ISO != m.ISO["x86_64"] || s.Rootfs != m.RootfsFile["x86_64"] || s.Arch != "x86_64" {
		t.Errorf("local files: %+v %v", s, err)
	}
}

// A missing file, a mirror error or an ISO without the PXE files fails
// with the URL (without its query) and leaves no file behind.
func TestResolveFailures(t *testing.T) {
	m := coreostest.NewMirror(t)
	srv, _ := mirror(t, m.Dir)
	dir := t.TempDir()
	f := &Fetcher{Dir: dir}
	iso := srv.URL + "/" + filepath.Base(m.ISO["x86_64"])
	for name, tc := range map[string]struct {
		img  OSImage
		want string
	}{
		"404":     {OSImage{OpenshiftVersion: "4.16", URL: srv.URL + "/missing.iso?token=s3cret", RootFSURL: iso}, "downloading " + srv.URL + "/missing.iso: the server answered 404"},
		"nofile":  {OSImage{OpenshiftVersion: "4.16", URL: iso, RootFSURL: filepath.Join(m.Dir, "nope.img")}, "rootFSUrl: stat"},
		"dir":     {OSImage{OpenshiftVersion: "4.16", URL: m.Dir, RootFSURL: iso}, "is not a regular file"},
		"notlive": {OSImage{OpenshiftVersion: "4.16", URL: m.RootfsFile["x86_64"], RootFSURL: iso}, "osImages ocp-4.16-x86_64: url " + m.RootfsFile["x86_64"]},
	} {
		_, err := f.Resolve(t.Context(), tc.img)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
		if name == "notlive" && !errors.Is(err, coreos.ErrISO) {
			t.Errorf("notlive: %v, want coreos.ErrISO", err)
		}
	}
	var partial []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), ".download-") {
			partial = append(partial, p)
		}
		return nil
	})
	if len(partial) > 0 {
		t.Errorf("partial downloads left: %q", partial)
	}
}

func read(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
