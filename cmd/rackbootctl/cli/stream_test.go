package cli_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
)

// front is a proxy before the rig's server that counts host lists
// (plain and watch) and can refuse either.
type front struct {
	srv                  *httptest.Server
	lists, watches       atomic.Int32
	noLists, noWatchPath bool
}

func newFront(t *testing.T, r *rig, noLists, noWatch bool) *front {
	target, err := url.Parse(r.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	f := &front{noLists: noLists, noWatchPath: noWatch}
	proxy := httputil.NewSingleHostReverseProxy(target)
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/hosts") {
			if req.URL.Query().Get("watch") == "true" {
				f.watches.Add(1)
				if f.noWatchPath {
					http.NotFound(w, req) // a server without the route
					return
				}
			} else {
				f.lists.Add(1)
				if f.noLists {
					http.Error(w, `{"code":"410","reason":"polling disabled"}`, http.StatusGone)
					return
				}
			}
		}
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// watchVia runs rackbootctl args (a watch) against URL u until stop.
func watchVia(t *testing.T, r *rig, u string, args ...string) (<-chan string, func() (int, string)) {
	w, ch := lines()
	var stderr syncBuffer
	env := cli.Env{Stdout: w, Stderr: &stderr, Version: "test", Stdin: strings.NewReader(""),
		Getenv: func(k string) string {
			if k == "RACKBOOT_URL" {
				return u
			}
			return r.env[k]
		}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, args, env)
		w.Close()
	}()
	var once sync.Once
	code := -1
	stop := func() (int, string) {
		once.Do(func() {
			cancel()
			code = <-done
		})
		return code, stderr.String()
	}
	t.Cleanup(func() { stop() }) // a failed test does not leave the watch (and its stream) open
	return ch, stop
}

// watchLine is one line of get hosts -w -o json --output-watch-events.
type watchLine struct {
	Type   string `json:"type"`
	Object struct {
		ID       string `json:"id"`
		Status   string `json:"status"`
		Approved bool   `json:"approved"`
	} `json:"object"`
}

// get hosts -w -o json follows the server's watch stream: ADDED when a
// host registers, MODIFIED when it is approved, DELETED when it is
// deleted, one JSON document a line, and never lists hosts (the front
// refuses plain lists, which would end the watch).
func TestWatchHostsStreamsJSON(t *testing.T) {
	r := newRig(t)
	ie := createdID(t, r.ok("create", "infra-env", "--name", "lab", "--pull-secret-file", "-"))
	f := newFront(t, r, true, false)
	for _, args := range [][]string{
		{"get", "hosts", "-w", "-o", "json", "--output-watch-events", "--interval", "100ms"},
		{"get", "hosts", "-w", "-o", "json", "--output-watch-events", "--infra-env", ie},
	} {
		t.Run(strings.Join(args[3:], " "), func(t *testing.T) {
			ch, stop := watchVia(t, r, f.srv.URL, args...)
			next := func(want string) watchLine {
				t.Helper()
				var ev watchLine
				l := waitLine(t, ch, want, func(string) bool { return true })
				if err := json.Unmarshal([]byte(l), &ev); err != nil {
					t.Fatalf("not one JSON document a line: %q: %v", l, err)
				}
				if ev.Type != want || ev.Object.ID != hostID {
					t.Fatalf("got %s of %s, want %s of %s: %q", ev.Type, ev.Object.ID, want, hostID, l)
				}
				return ev
			}
			registerHost(t, r, ie, hostID)
			if ev := next("ADDED"); ev.Object.Approved || ev.Object.Status == "" {
				t.Errorf("added host: %+v", ev.Object)
			}
			r.ok("approve", "host", hostID)
			for ev := next("MODIFIED"); !ev.Object.Approved; ev = next("MODIFIED") {
			}
			r.ok("delete", "host", hostID)
			next("DELETED")
			code, stderr := stop()
			if code != 0 {
				t.Errorf("watch exited %d: %s", code, stderr)
			}
			for l := range ch {
				t.Errorf("unexpected line after cancel: %q", l)
			}
		})
	}
	if f.lists.Load() != 0 || f.watches.Load() < 2 {
		t.Errorf("the watches made %d host lists and %d watch requests; want 0 and one per watch",
			f.lists.Load(), f.watches.Load())
	}
}

// -w -o json without --output-watch-events prints the host itself per
// change; -o yaml separates the documents with ---.
func TestWatchHostsDocuments(t *testing.T) {
	r := newRig(t)
	ie := createdID(t, r.ok("create", "infra-env", "--name", "lab", "--pull-secret-file", "-"))
	registerHost(t, r, ie, hostID)

	ch, stop := watchVia(t, r, r.srv.URL, "get", "hosts", "-w", "-o", "json")
	l := waitLine(t, ch, "the host", func(string) bool { return true })
	var h struct {
		ID         string `json:"id"`
		InfraEnvID string `json:"infra_env_id"`
	}
	if err := json.Unmarshal([]byte(l), &h); err != nil || h.ID != hostID || h.InfraEnvID != ie {
		t.Errorf("-w -o json line %q: %+v %v", l, h, err)
	}
	stop()

	ch, stop = watchVia(t, r, r.srv.URL, "get", "hosts", "-w", "-o", "yaml")
	waitLine(t, ch, "the document separator", func(l string) bool { return l == "---" })
	waitLine(t, ch, "the host's id", func(l string) bool { return l == "id: "+hostID })
	r.ok("approve", "host", hostID)
	waitLine(t, ch, "the next document", func(l string) bool { return l == "---" })
	waitLine(t, ch, "the approved host", func(l string) bool { return l == "approved: true" })
	if code, stderr := stop(); code != 0 {
		t.Errorf("watch exited %d: %s", code, stderr)
	}
}

// A server without the watch stream (404 for ?watch=true) is polled.
func TestWatchHostsFallsBackToPolling(t *testing.T) {
	r := newRig(t)
	ie := createdID(t, r.ok("create", "infra-env", "--name", "lab", "--pull-secret-file", "-"))
	f := newFront(t, r, false, true)
	ch, stop := watchVia(t, r, f.srv.URL, "get", "hosts", "-w", "--interval", "100ms")
	waitLine(t, ch, "the header", func(l string) bool { return strings.HasPrefix(l, "ID ") })
	registerHost(t, r, ie, hostID)
	waitLine(t, ch, "the polled host", func(l string) bool { return strings.HasPrefix(l, hostID) })
	code, stderr := stop()
	if code != 0 || !strings.Contains(stderr, "does not stream host changes; polling") {
		t.Errorf("watch exited %d, stderr %q", code, stderr)
	}
	if f.watches.Load() == 0 || f.lists.Load() == 0 {
		t.Errorf("%d watch requests, %d lists: want both", f.watches.Load(), f.lists.Load())
	}
}

// Resources may be named as kubectl would: singular, plural, short.
func TestResourceAliases(t *testing.T) {
	r := newRig(t)
	ie := createdID(t, r.ok("create", "infra-env", "--name", "lab", "--pull-secret-file", "-"))
	cl := createdID(t, r.ok("create", "cluster", "--name", "prod", "--version", "4.16", "--base-domain", "example.com",
		"--pull-secret-file", "-"))
	registerHost(t, r, ie, hostID)
	for id, names := range map[string][]string{
		ie:     {"infra-envs", "infra-env", "ie", "Infra-Envs"},
		hostID: {"hosts", "host"},
		cl:     {"clusters", "cluster"},
	} {
		want := r.ok("get", names[0], "-o", "json")
		if !strings.Contains(want, id) {
			t.Fatalf("get %s: %s", names[0], want)
		}
		for _, n := range names[1:] {
			if got := r.ok("get", n, "-o", "json"); got != want {
				t.Errorf("get %s differs from get %s:\n%s\n%s", n, names[0], got, want)
			}
		}
	}
	if out := r.ok("describe", "host", hostID); !strings.Contains(out, hostID) {
		t.Errorf("describe host: %s", out)
	}
	r.ok("delete", "host", hostID)
	r.ok("delete", "ie", ie)
	if out := r.ok("get", "infra-envs", "-o", "json"); strings.Contains(out, ie) {
		t.Errorf("delete ie left the infra-env: %s", out)
	}
}

// A broken watch stream is reopened; a host deleted while it was down is
// still reported deleted (the reopened stream lists the infra-env first).
func TestWatchHostsReconnects(t *testing.T) {
	r := newRig(t)
	ie := createdID(t, r.ok("create", "infra-env", "--name", "lab", "--pull-secret-file", "-"))
	target, err := url.Parse(r.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var (
		mu    sync.Mutex
		cuts  []context.CancelFunc
		down  atomic.Bool
		watch atomic.Int32
	)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Query().Get("watch") != "true" {
			proxy.ServeHTTP(w, req)
			return
		}
		watch.Add(1)
		if down.Load() {
			http.Error(w, `{"code":"503","reason":"no leader"}`, http.StatusServiceUnavailable)
			return
		}
		ctx, cut := context.WithCancel(req.Context())
		mu.Lock()
		cuts = append(cuts, cut)
		mu.Unlock()
		proxy.ServeHTTP(w, req.WithContext(ctx))
	}))
	t.Cleanup(front.Close)

	ch, stop := watchVia(t, r, front.URL, "get", "hosts", "-w", "--interval", "100ms")
	registerHost(t, r, ie, hostID)
	waitLine(t, ch, "the host", func(l string) bool { return strings.HasPrefix(l, hostID) })
	down.Store(true)
	mu.Lock()
	for _, cut := range cuts {
		cut()
	}
	mu.Unlock()
	for n := watch.Load(); watch.Load() == n; runtime.Gosched() { // wait for a refused reopen
	}
	r.ok("delete", "host", hostID)
	down.Store(false)
	waitLine(t, ch, "the host deleted while the stream was down",
		func(l string) bool { return strings.HasPrefix(l, hostID) && strings.Contains(l, " deleted ") })
	code, stderr := stop()
	if code != 0 || !strings.Contains(stderr, "(retrying)") {
		t.Errorf("watch exited %d, stderr %q", code, stderr)
	}
}
