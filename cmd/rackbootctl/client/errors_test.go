package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestErrorDocuments(t *testing.T) {
	for _, c := range []struct {
		name, body string
		status     int
		want       string
		sentinel   error
	}{
		{"upstream error", `{"code":"404","href":"","id":404,"kind":"Error","reason":"infra-env x not found"}`, 404, "infra-env x not found (HTTP 404)", ErrNotFound},
		{"infra error", `{"code":409,"message":"host is installing"}`, 409, "host is installing (HTTP 409)", ErrConflict},
		{"plain text", "upstream proxy timeout\n", 502, "upstream proxy timeout (HTTP 502)", ErrServer},
		{"empty", "", 403, "GET /api/assisted-install/v2/clusters: HTTP 403 Forbidden", ErrForbidden},
		{"escape", "{\"reason\":\"bad \\u001b[2J name\\nhere\"}", 400, "bad [2J name here (HTTP 400)", ErrBadRequest},
		{"echoed token", `{"reason":"token sekrit-token is invalid"}`, 401, "token [redacted] is invalid (HTTP 401)", ErrUnauthorized},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			}))
			defer srv.Close()
			cl, err := New(Config{URL: srv.URL, Token: "sekrit-token"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = cl.ListClusters(context.Background())
			var ae *APIError
			if !errors.As(err, &ae) || ae.Status != c.status || err.Error() != c.want || !errors.Is(err, c.sentinel) {
				t.Errorf("got %v (%#v), want %q matching %v", err, err, c.want, c.sentinel)
			}
		})
	}
}

func TestUndecodableAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"not":"a list"}`))
	}))
	defer srv.Close()
	cl, err := New(Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.ListHosts(context.Background(), "x"); !errors.Is(err, ErrProtocol) {
		t.Errorf("got %v, want ErrProtocol", err)
	}
}

// FuzzAPIError: any error body gives a bounded, single-line, valid UTF-8
// reason without the token.
func FuzzAPIError(f *testing.F) {
	for _, s := range []string{`{"reason":"x"}`, `{"message":"y","code":5}`, "plain", "", `{"reason":"tok123"}`, "\x1b]0;t\x07"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		e := newAPIError("GET", "/p", 400, []byte(body), "tok123")
		msg := e.Error()
		if strings.Contains(msg, "tok123") || strings.ContainsAny(msg, "\n\r\x1b\x07") || !utf8.ValidString(msg) {
			t.Errorf("reason %q", msg)
		}
		if len(e.Reason) > maxReason+len("…") {
			t.Errorf("reason of %d bytes", len(e.Reason))
		}
	})
}
