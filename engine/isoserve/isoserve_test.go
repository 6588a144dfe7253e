package isoserve_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cavaliergopher/cpio"

	"github.com/rackboot/rackboot/boot/iso"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/isoserve"
)

const (
	ieID  = "11111111-1111-4111-8111-111111111111"
	ie2ID = "22222222-2222-4222-8222-222222222222"
)

// makeISO builds a small live ISO with an Ignition embed area (xorriso).
func makeISO(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("xorriso"); err != nil {
		t.Skip("xorriso not installed (Debian package xorriso)")
	}
	dir := t.TempDir()
	tree := map[string][]byte{
		"coreos/igninfo.json": []byte(`{"file": "images/ignition.img"}`),
		"images/ignition.img": make([]byte, 64<<10),
		"images/vmlinuz":      bytes.Repeat([]byte("kernel"), 50000),
	}
	for name, data := range tree {
		p := filepath.Join(dir, "tree", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "base.iso")
	cmd := exec.Command("xorriso", "-as", "mkisofs", "-quiet", "-R", "-J", "-V", "TEST", "-o", out, filepath.Join(dir, "tree"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xorriso: %v\n%s", err, b)
	}
	return out
}

// ignitions is a fixed config per infra-env, counting builds.
type ignitions struct {
	mu    sync.Mutex
	cfg   map[string]string
	calls int
}

func (g *ignitions) InfraEnvIgnition(_ context.Context, id string) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls++
	return []byte(g.cfg[id]), nil
}

type bed struct {
	st   *enginetest.Store
	srv  *isoserve.Server
	http *httptest.Server
	ign  *ignitions
	now  time.Time
	keys *auth.KeyRing
}

func newBed(t *testing.T, baseISO string) *bed {
	t.Helper()
	b := &bed{st: enginetest.NewStore(), ign: &ignitions{cfg: map[string]string{ieID: `{"ignition":{"version":"3.4.0"}}`}},
		now: time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)}
	b.keys = auth.NewKeyRing(auth.WithClock(func() time.Time { return b.now }))
	if _, err := b.keys.Generate(); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, c := range []engine.Command{
		&engine.PutImageSet{ImageSet: engine.ImageSet{Name: "testbed", Profile: "discovery", BaseISO: baseISO}},
		&engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "rack1"}},
	} {
		if _, err := b.st.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	mux := http.NewServeMux()
	b.http = httptest.NewServer(mux)
	t.Cleanup(b.http.Close)
	var err error
	b.srv, err = isoserve.New(isoserve.Options{Store: b.st, Keys: b.keys, BaseURL: b.http.URL, Ignition: b.ign,
		Now: func() time.Time { return b.now }, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.srv.Close() })
	mux.Handle(isoserve.Pattern, b.srv)
	return b
}

func get(t *testing.T, method, u string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, u, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, body
}

// embedded reads config.ign back from the served image's embed area.
func embedded(t *testing.T, image []byte, base string) string {
	t.Helper()
	b, err := iso.OpenBase(base)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	a := b.Layout().Ignition
	zr, err := gzip.NewReader(bytes.NewReader(image[a.Offset : a.Offset+a.Length]))
	if err != nil {
		t.Fatalf("embed area is not gzip: %v", err)
	}
	zr.Multistream(false)
	cr := cpio.NewReader(zr)
	for {
		h, err := cr.Next()
		if err != nil {
			t.Fatalf("no config.ign in the embed area: %v", err)
		}
		if h.Name == "config.ign" {
			data, _ := io.ReadAll(cr)
			return string(data)
		}
	}
}

func TestServeDiscoveryISO(t *testing.T) {
	base := makeISO(t)
	b := newBed(t, base)
	u, err := b.srv.ISOURL(t.Context(), ieID)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(b.http.URL) + `/images/` + ieID + `/[A-Za-z0-9_.-]+/discovery\.iso$`)
	if !re.MatchString(u) || len(u) > 255 || strings.Contains(u, "?") {
		t.Fatalf("URL %q: want <base>/images/<id>/<token>/discovery.iso, no query, ≤255", u)
	}
	want, _ := os.ReadFile(base)
	res, img := get(t, "GET", u, nil)
	if res.StatusCode != 200 || len(img) != len(want) || res.Header.Get("Content-Type") != iso.ContentType {
		t.Fatalf("GET: %d, %d bytes (base %d), %s", res.StatusCode, len(img), len(want), res.Header.Get("Content-Type"))
	}
	if got := embedded(t, img, base); got != b.ign.cfg[ieID] {
		t.Errorf("embedded config.ign = %q", got)
	}
	// Outside the embed area the image is the base, byte for byte.
	bb, _ := iso.OpenBase(base)
	a := bb.Layout().Ignition
	bb.Close()
	if !bytes.Equal(img[:a.Offset], want[:a.Offset]) || !bytes.Equal(img[a.Offset+a.Length:], want[a.Offset+a.Length:]) {
		t.Error("bytes outside the embed area differ from the base")
	}
	// Range (a BMC reads in pieces) and HEAD.
	res, part := get(t, "GET", u, map[string]string{"Range": fmt.Sprintf("bytes=%d-%d", a.Offset-10, a.Offset+9)})
	if res.StatusCode != 206 || !bytes.Equal(part, img[a.Offset-10:a.Offset+10]) {
		t.Errorf("Range: %d %q", res.StatusCode, part)
	}
	res, body := get(t, "HEAD", u, nil)
	if res.StatusCode != 200 || len(body) != 0 || res.ContentLength != int64(len(want)) || res.Header.Get("Accept-Ranges") != "bytes" {
		t.Errorf("HEAD: %d, %d body bytes, length %d", res.StatusCode, len(body), res.ContentLength)
	}
	if b.ign.calls != 3 {
		t.Logf("ignition asked %d times", b.ign.calls)
	}
	etag := res.Header.Get("ETag")
	// A changed config changes the image and its ETag.
	b.ign.mu.Lock()
	b.ign.cfg[ieID] = `{"ignition":{"version":"3.4.0"},"passwd":{}}`
	b.ign.mu.Unlock()
	res, img = get(t, "GET", u, nil)
	if res.Header.Get("ETag") == etag || embedded(t, img, base) != b.ign.cfg[ieID] {
		t.Error("a changed config was not served")
	}
}

func TestServeRefuses(t *testing.T) {
	base := makeISO(t)
	b := newBed(t, base)
	u, err := b.srv.ISOURL(t.Context(), ieID)
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.Split(u, "/")[5]
	other, _ := b.keys.NewPathToken(ie2ID, b.now.Add(time.Hour))
	for name, c := range map[string]struct {
		url  string
		code int
	}{
		"garbage token":         {b.http.URL + "/images/" + ieID + "/not-a-token/discovery.iso", 403},
		"other infra-env token": {b.http.URL + "/images/" + ieID + "/" + other + "/discovery.iso", 403},
		"token moved":           {b.http.URL + "/images/" + ie2ID + "/" + tok + "/discovery.iso", 403},
		"unknown infra-env":     {b.http.URL + "/images/" + ie2ID + "/" + other + "/discovery.iso", 404},
		"other name":            {b.http.URL + "/images/" + ieID + "/" + tok + "/other.iso", 404},
		"query appended":        {u + "?x=1", 200},
	} {
		res, body := get(t, "GET", c.url, nil)
		if res.StatusCode != c.code {
			t.Errorf("%s: %d, want %d", name, res.StatusCode, c.code)
		}
		if c.code >= 400 && bytes.Contains(body, []byte(tok)) {
			t.Errorf("%s: the answer shows the token", name)
		}
	}
	res, _ := get(t, "POST", u, nil)
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", res.StatusCode)
	}
	b.now = b.now.Add(2 * time.Hour)
	if res, _ := get(t, "GET", u, nil); res.StatusCode != 403 {
		t.Errorf("expired URL: %d", res.StatusCode)
	}
	if _, err := b.srv.ISOURL(t.Context(), ie2ID); err == nil {
		t.Error("URL for an unknown infra-env")
	}
}

func TestNoBaseISO(t *testing.T) {
	b := newBed(t, "")
	u, err := b.srv.ISOURL(t.Context(), ieID)
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := get(t, "GET", u, nil); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("no base ISO: %d, want 503", res.StatusCode)
	}
}

// A base URL long enough to push the image URL past 255 characters is
// refused when the URL is made, not when a BMC chokes on it.
func TestURLTooLong(t *testing.T) {
	b := newBed(t, "")
	srv, err := isoserve.New(isoserve.Options{Store: b.st, Keys: b.keys, Ignition: b.ign,
		BaseURL: "http://" + strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + ".example:8080"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.ISOURL(t.Context(), ieID); err == nil {
		t.Error("URL over 255 characters handed out")
	}
}

// The API's image URL: the ISO's URL valid until the expiry the API
// gives, not for the server's own TTL; none when the image set has no base
// ISO; an error for an unknown infra-env.
func TestDiscoveryISOURL(t *testing.T) {
	base := makeISO(t)
	b := newBed(t, base)
	u, ok, err := b.srv.DiscoveryISOURL(t.Context(), ieID, b.now.Add(4*time.Hour))
	if err != nil || !ok || !strings.HasSuffix(u, "/discovery.iso") {
		t.Fatalf("URL %q, %v, %v", u, ok, err)
	}
	b.now = b.now.Add(3 * time.Hour) // past the server's TTL (1 h), before the expiry asked for
	if res, _ := get(t, "GET", u, nil); res.StatusCode != http.StatusOK {
		t.Errorf("within its expiry: %d", res.StatusCode)
	}
	b.now = b.now.Add(2 * time.Hour)
	if res, _ := get(t, "GET", u, nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("past its expiry: %d", res.StatusCode)
	}
	if _, _, err := b.srv.DiscoveryISOURL(t.Context(), ie2ID, b.now.Add(time.Hour)); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("unknown infra-env: %v", err)
	}
	none := newBed(t, "")
	if u, ok, err := none.srv.DiscoveryISOURL(t.Context(), ieID, none.now.Add(time.Hour)); err != nil || ok || u != "" {
		t.Errorf("no base ISO: %q, %v, %v", u, ok, err)
	}
}
