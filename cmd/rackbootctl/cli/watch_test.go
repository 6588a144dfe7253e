package cli_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/cli"
)

// get hosts -w prints the header, then a row when a host registers and
// again when it is approved; cancelling ends it with exit 0.
func TestWatchHosts(t *testing.T) {
	r := newRig(t)
	ie := createdID(t, r.ok("create", "infra-env", "--name", "lab", "--pull-secret-file", "-"))

	w, ch := lines()
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, []string{"get", "hosts", "-w", "--interval", "100ms"}, r.cliEnv(w, &stderr))
		w.Close()
	}()
	waitLine(t, ch, "the header", func(l string) bool { return strings.HasPrefix(l, "ID ") && strings.Contains(l, "APPROVED") })

	registerHost(t, r, ie, hostID)
	row := waitLine(t, ch, "the registered host", func(l string) bool { return strings.HasPrefix(l, hostID) })
	if !strings.Contains(row, "discovering-unbound") || !strings.Contains(row, " false ") {
		t.Errorf("row of a new host: %q", row)
	}
	r.ok("approve", "host", hostID)
	waitLine(t, ch, "the approved host", func(l string) bool { return strings.HasPrefix(l, hostID) && strings.Contains(l, " true ") })

	r.ok("delete", "host", hostID)
	waitLine(t, ch, "the deleted host", func(l string) bool { return strings.HasPrefix(l, hostID) && strings.Contains(l, " deleted ") })

	cancel()
	if code := <-done; code != 0 {
		t.Errorf("watch exited %d: %s", code, stderr.String())
	}
	for l := range ch {
		t.Errorf("unexpected line after cancel: %q", l)
	}
}

// A watch rides out a server that answers 503 for a while: it warns on
// stderr and shows the change once the server is back.
func TestWatchSurvivesOutage(t *testing.T) {
	r := newRig(t)
	ie := createdID(t, r.ok("create", "infra-env", "--name", "lab", "--pull-secret-file", "-"))
	target, err := url.Parse(r.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var down atomic.Bool
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if down.Load() {
			http.Error(w, `{"code":"503","reason":"no leader"}`, http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, req)
	}))
	defer front.Close()
	r.env["RACKBOOT_URL"] = front.URL

	w, ch := lines()
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, []string{"get", "hosts", "-w", "--interval", "100ms"}, r.cliEnv(w, &stderr))
		w.Close()
	}()
	waitLine(t, ch, "the header", func(l string) bool { return strings.HasPrefix(l, "ID ") })
	down.Store(true)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(stderr.String(), "no leader (HTTP 503) (retrying)") {
		if time.Now().After(deadline) {
			t.Fatalf("no warning during the outage: %q", stderr.String())
		}
		runtime.Gosched()
	}
	r.env["RACKBOOT_URL"] = r.srv.URL // registerHost talks to the server itself
	registerHost(t, r, ie, hostID)
	down.Store(false)
	waitLine(t, ch, "the host after the outage", func(l string) bool { return strings.HasPrefix(l, hostID) })
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("watch exited %d: %s", code, stderr.String())
	}
}
