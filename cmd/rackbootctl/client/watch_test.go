package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
)

// A server that ignores ?watch=true and answers the plain list gives
// ErrNoWatch; a broken line gives ErrProtocol.
func TestWatchHostsAnswers(t *testing.T) {
	for _, c := range []struct {
		ctype, body string
		want        error
	}{
		{"application/json", `[]`, client.ErrNoWatch},
		{"application/x-ndjson", "{\"type\":\"ADDED\",\"object\":{\"id\":\"h1\"}}\nnot json\n", client.ErrProtocol},
		{"application/x-ndjson", "{\"type\":\"ADDED\",\"object\":{\"id\":\"h1\"}}\n", nil},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", c.ctype)
			_, _ = w.Write([]byte(c.body))
		}))
		cl, err := client.New(client.Config{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		var got []client.WatchEvent
		err = cl.WatchHosts(context.Background(), "ie", func(ev client.WatchEvent) error {
			got = append(got, ev)
			return nil
		})
		srv.Close()
		if !errors.Is(err, c.want) || (c.want == nil && err != nil) {
			t.Errorf("%s %q: %v, want %v", c.ctype, c.body, err, c.want)
		}
		if c.ctype != "application/json" && (len(got) != 1 || got[0].Object.ID != "h1") {
			t.Errorf("%q: events %+v", c.body, got)
		}
	}
}

// ParseWatchEvent accepts a known type with a host ID, and refuses
// anything else with ErrProtocol, never panicking.
func FuzzParseWatchEvent(f *testing.F) {
	for _, s := range []string{
		`{"type":"ADDED","object":{"id":"h1","infra_env_id":"ie","status":"known"}}`,
		`{"type":"DELETED","object":{"id":"h1"}}`,
		`{"type":"BOGUS","object":{"id":"h1"}}`,
		`{"type":"ADDED","object":null}`,
		`{"type":"ADDED"`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := client.ParseWatchEvent(b)
		if err != nil {
			if !errors.Is(err, client.ErrProtocol) {
				t.Fatalf("error %v does not match ErrProtocol", err)
			}
			return
		}
		if ev.Object == nil || ev.Object.ID == "" {
			t.Fatalf("accepted an event without a host: %q", b)
		}
	})
}
