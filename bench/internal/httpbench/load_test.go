package httpbench

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
