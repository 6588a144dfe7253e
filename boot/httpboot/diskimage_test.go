package httpboot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rackboot/rackboot/boot"
)

// imageMap is a fixed set of disk images.
type imageMap map[string]DiskImage

func (m imageMap) DiskImage(_ context.Context, name string) (DiskImage, bool) {
	img, ok := m[name]
	return img, ok
}

type fixedChooser struct{}

func (fixedChooser) Choose(context.Context, net.HardwareAddr) (boot.Choice, error) {
	return boot.Choice{}, boot.ErrNoBoot
}

func diskServer(t *testing.T) (*httptest.Server, []byte, string) {
	t.Helper()
	data := randomBytes(1<<20+123, 7)
	path := filepath.Join(t.TempDir(), "disk.img")
	writeFile(t, path, data)
	sum := sha256.Sum256(data)
	h, err := New(Options{BaseURL: "http://10.0.0.1:8080", Boot: fixedChooser{}, Images: imageMap{
		"os-1":    {Path: path, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))},
		"missing": {Path: filepath.Join(t.TempDir(), "gone.img")},
		"none":    {},
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, data, hex.EncodeToString(sum[:])
}

func do(t *testing.T, method, url string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// The disk image is served whole, by range, by HEAD, and revalidated by
// its sha256 ETag; unknown and unsafe names are 404.
func TestDiskImage(t *testing.T) {
	srv, data, sum := diskServer(t)
	u := srv.URL + "/images/os-1/disk.img"
	res, body := do(t, "GET", u, nil)
	if res.StatusCode != 200 || !bytes.Equal(body, data) || res.Header.Get("ETag") != `"sha256-`+sum+`"` {
		t.Fatalf("GET: %d, %d bytes, ETag %s", res.StatusCode, len(body), res.Header.Get("ETag"))
	}
	res, body = do(t, "HEAD", u, nil)
	if res.StatusCode != 200 || len(body) != 0 || res.Header.Get("Content-Length") != strconv.Itoa(len(data)) ||
		res.Header.Get("Accept-Ranges") != "bytes" {
		t.Errorf("HEAD: %d, %d bytes, %v", res.StatusCode, len(body), res.Header)
	}
	res, body = do(t, "GET", u, map[string]string{"Range": "bytes=1000-1999"})
	if res.StatusCode != 206 || !bytes.Equal(body, data[1000:2000]) ||
		res.Header.Get("Content-Range") != "bytes 1000-1999/"+strconv.Itoa(len(data)) {
		t.Errorf("range: %d %q, %d bytes", res.StatusCode, res.Header.Get("Content-Range"), len(body))
	}
	res, _ = do(t, "GET", u, map[string]string{"If-None-Match": `"sha256-` + sum + `"`})
	if res.StatusCode != 304 {
		t.Errorf("If-None-Match: %d", res.StatusCode)
	}
	for _, p := range []string{"/images/nope/disk.img", "/images/none/disk.img", "/images/..%2F..%2Fetc/disk.img",
		"/images/.hidden/disk.img", "/images/os-1/other.img"} {
		if res, _ := do(t, "GET", srv.URL+p, nil); res.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, res.StatusCode)
		}
	}
	if res, _ := do(t, "GET", srv.URL+"/images/missing/disk.img", nil); res.StatusCode != 500 {
		t.Errorf("unreadable image: %d, want 500", res.StatusCode)
	}
}

// curl resumes a download with a range, as an interrupted install would.
func TestDiskImageCurlRange(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	srv, data, _ := diskServer(t)
	out := filepath.Join(t.TempDir(), "part")
	writeFile(t, out, data[:5000])
	cmd := exec.Command("curl", "-fsS", "-C", "-", "-o", out, srv.URL+"/images/os-1/disk.img")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("curl: %v %s", err, b)
	}
	got := readFile(t, out)
	if !bytes.Equal(got, data) {
		t.Errorf("resumed download differs (%d bytes of %d)", len(got), len(data))
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
