package iso

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"testing"
)

func serve(t *testing.T) (*httptest.Server, *Image, []byte) {
	t.Helper()
	b, _ := openTestBase(t, testTree(t))
	img, err := b.Overlay(Custom{Ignition: []byte(testIgnition), ExtraKernelArgs: "rackboot.test=1"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(img)
	t.Cleanup(srv.Close)
	return srv, img, readAll(t, img)
}

func get(t *testing.T, url string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestRangeAcrossAreaBoundaries(t *testing.T) {
	srv, img, want := serve(t)
	a := img.base.Layout().Ignition
	k := img.base.Layout().Kargs.Regions[0]
	ranges := [][2]int64{
		{a.Offset - 7, a.Offset + 9},                       // into the area
		{a.Offset + a.Length - 5, a.Offset + a.Length + 3}, // out of it
		{a.Offset - 1, a.Offset + a.Length},                // all of it and a byte each side
		{k.Offset - 3, k.Offset + k.Length + 3},            // a kargs area
		{0, 0},
		{img.Size() - 10, img.Size() - 1},
	}
	for _, r := range ranges {
		resp, body := get(t, srv.URL+"/x.iso", map[string]string{"Range": fmt.Sprintf("bytes=%d-%d", r[0], r[1])})
		if resp.StatusCode != http.StatusPartialContent {
			t.Fatalf("range %v: status %d", r, resp.StatusCode)
		}
		if !bytes.Equal(body, want[r[0]:r[1]+1]) {
			t.Errorf("range %v: %d bytes differ from the overlay", r, len(body))
		}
		if resp.Header.Get("ETag") != img.ETag() {
			t.Errorf("range %v: etag %q", r, resp.Header.Get("ETag"))
		}
	}
}

func TestHeadAndConditional(t *testing.T) {
	srv, img, want := serve(t)
	resp, err := http.Head(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != int64(len(want)) || resp.Header.Get("Accept-Ranges") != "bytes" ||
		resp.Header.Get("Content-Type") != ContentType || resp.Header.Get("ETag") != img.ETag() {
		t.Fatalf("HEAD: %d, length %d, headers %v", resp.StatusCode, resp.ContentLength, resp.Header)
	}
	resp, body := get(t, srv.URL, map[string]string{"If-None-Match": img.ETag()})
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Fatalf("If-None-Match: %d with %d bytes", resp.StatusCode, len(body))
	}
	resp, body = get(t, srv.URL, map[string]string{"If-Range": `"stale"`, "Range": "bytes=0-9"})
	if resp.StatusCode != 200 || !bytes.Equal(body, want) {
		t.Fatalf("stale If-Range: %d with %d bytes, want the whole image", resp.StatusCode, len(body))
	}
}

// TestCurlDownload fetches the image with curl, as an operator would.
func TestCurlDownload(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed")
	}
	srv, img, want := serve(t)
	a := img.base.Layout().Ignition
	out, err := exec.Command("curl", "-sSf", "-r", strconv.FormatInt(a.Offset-100, 10)+"-", srv.URL+"/d.iso").Output()
	if err != nil {
		t.Fatalf("curl: %v", err)
	}
	if !bytes.Equal(out, want[a.Offset-100:]) {
		t.Fatalf("curl got %d bytes that differ from the overlay", len(out))
	}
}

func TestServeOverlay(t *testing.T) {
	b, _ := openTestBase(t, testTree(t))
	big := make([]byte, 2*testAreaSize)
	rand.Read(big)
	custom := Custom{Ignition: []byte(testIgnition)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := custom
		if r.URL.Path == "/big.iso" {
			c = Custom{Ignition: big}
		}
		b.ServeOverlay(w, r, c)
	}))
	defer srv.Close()
	img, _ := b.Overlay(custom)
	resp, body := get(t, srv.URL+"/ok.iso", nil)
	if resp.StatusCode != 200 || !bytes.Equal(body, readAll(t, img)) || resp.Header.Get("ETag") != img.ETag() {
		t.Fatalf("GET: %d, %d bytes", resp.StatusCode, len(body))
	}
	resp, body = get(t, srv.URL+"/big.iso", nil)
	if resp.StatusCode != 500 || !bytes.Contains(body, []byte("embed area holds 65536")) {
		t.Fatalf("too large: %d %s", resp.StatusCode, body)
	}
	resp, err := http.Post(srv.URL+"/ok.iso", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %d", resp.StatusCode)
	}
}
