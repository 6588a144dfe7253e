package redfish

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeMachine records what the service asked of it.
type fakeMachine struct {
	mu      sync.Mutex
	on      bool
	cd      string
	calls   []string
	lastOpt StartOptions
}

func (f *fakeMachine) log(s string) { f.calls = append(f.calls, s) }

func (f *fakeMachine) Running(context.Context) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.on
}

func (f *fakeMachine) Start(_ context.Context, o StartOptions) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.on, f.cd, f.lastOpt = true, o.CD, o
	f.log("start:" + o.Boot)
	return nil
}

func (f *fakeMachine) Stop(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.on = false
	f.log("stop")
	return nil
}

func (f *fakeMachine) Shutdown(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.on = false
	f.log("shutdown")
	return nil
}

func (f *fakeMachine) Reset(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log("reset")
	return nil
}

func (f *fakeMachine) ChangeMedium(_ context.Context, path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cd = path
	if path != "" {
		path = filepath.Base(path)
	}
	f.log("medium:" + path)
	return nil
}

func (f *fakeMachine) history() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.calls, " ")
}

const (
	testUser = "admin"
	testPass = "s3cret-pw"
	testMAC  = "52:54:00:12:34:56"
)

// newTestService is a service with one fake UEFI system "vm1".
func newTestService(t *testing.T, maxImage int64) (*Service, *fakeMachine) {
	t.Helper()
	f := &fakeMachine{}
	svc, err := New(Config{Username: testUser, Password: testPass, MediaDir: t.TempDir(), MaxImage: maxImage},
		System{ID: "vm1", Name: "vm1", UUID: "00000000-0000-0000-0000-000000000001", MAC: testMAC, UEFI: true, Machine: f})
	if err != nil {
		t.Fatal(err)
	}
	return svc, f
}

// imageServer serves body at /disc.iso (and 404 elsewhere) on loopback.
func imageServer(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/disc.iso" && r.URL.Path != "/other.iso" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// serveTLS runs svc.Serve on a loopback port and returns host:port.
func serveTLS(t *testing.T, svc *Service) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

func mediaFiles(t *testing.T, svc *Service) []string {
	t.Helper()
	entries, err := os.ReadDir(svc.cfg.MediaDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
