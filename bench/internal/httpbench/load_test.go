package httpbench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadCountsBytesAndChecksSizes(t *testing.T) {
	body := strings.Repeat("x", 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/short" {
			w.Write([]byte(body[:10]))
			return
		}
		w.Write([]byte(body))
	}))
	defer srv.Close()
	l := Load{URLs: []string{srv.URL + "/a", srv.URL + "/b", srv.URL + "/short"}, Size: int64(len(body)), Rounds: 2}
	r := l.Run(context.Background())
	if r.Downloads != 4 || r.Bytes != 4<<20 {
		t.Errorf("downloads %d, bytes %d; want 4 and %d", r.Downloads, r.Bytes, 4<<20)
	}
	if r.Errors != 2 || !strings.Contains(r.FirstError, "wrong size") {
		t.Errorf("errors %d (%q), want 2 size errors", r.Errors, r.FirstError)
	}
}

func TestLoadReportsHTTPErrors(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	r := Load{URLs: []string{srv.URL}, Rounds: 1}.Run(context.Background())
	if r.Downloads != 0 || r.Errors != 1 || !strings.Contains(r.FirstError, "404") {
		t.Errorf("result %+v, want one 404 error", r)
	}
	if _, err := (Load{}).fetch(context.Background(), http.DefaultClient, "http://[::1"); err == nil || errors.Is(err, ErrSize) {
		t.Errorf("bad URL: err = %v", err)
	}
}

// imageServer serves body at /good and, at /flipped, the same length with
// one byte changed.
func imageServer(t *testing.T, body []byte) *httptest.Server {
	flipped := bytes.Clone(body)
	flipped[len(flipped)/2] ^= 1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := body
		if r.URL.Path == "/flipped" {
			b = flipped
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestLoadChecksEverySum(t *testing.T) {
	body := bytes.Repeat([]byte("rackboot disk image "), 200000)
	sum := sha256.Sum256(body)
	srv := imageServer(t, body)
	l := Load{URLs: []string{srv.URL + "/good", srv.URL + "/good", srv.URL + "/flipped"},
		Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:]), Block: 1 << 20}
	r := l.Run(t.Context())
	if r.Downloads != 2 || r.Bytes != 2*int64(len(body)) || r.MBps() <= 0 {
		t.Errorf("result %+v, want the 2 good downloads counted", r)
	}
	if r.Errors != 1 || !strings.Contains(r.FirstError, "wrong sha256") || !strings.Contains(r.FirstError, "/flipped") {
		t.Errorf("errors %d (%q), want the flipped byte caught", r.Errors, r.FirstError)
	}
	l.SHA256 = ""
	if r := l.Run(t.Context()); r.Downloads != 3 || r.Errors != 0 {
		t.Errorf("without SHA256: %+v, want 3 downloads unchecked", r)
	}
}

func TestArgsRoundTrip(t *testing.T) {
	body := []byte(strings.Repeat("y", 4096))
	sum := sha256.Sum256(body)
	srv := imageServer(t, body)
	want := Load{URLs: []string{srv.URL + "/good", srv.URL + "/flipped"}, Size: int64(len(body)),
		Rounds: 2, SHA256: hex.EncodeToString(sum[:]), Block: 512}
	args, err := want.Args(t.TempDir(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if args[0] != Subcommand {
		t.Fatalf("args %q do not start with %s", args, Subcommand)
	}
	r, err := RunArgs(t.Context(), args[1:])
	if err != nil {
		t.Fatal(err)
	}
	if r.Downloads != 2 || r.Errors != 2 || !strings.Contains(r.FirstError, "wrong sha256") {
		t.Errorf("result %+v, want 2 good rounds and 2 sum errors", r)
	}
	if _, err := RunArgs(t.Context(), []string{"-urls", filepath.Join(t.TempDir(), "none")}); err == nil {
		t.Error("a missing URL list was accepted")
	}
}
