package ha

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/rackboot/rackboot/testbed/netns"
)

// requireE2E skips unless RACKBOOT_E2E=1, and then fails on what is
// missing.
func requireE2E(t *testing.T) {
	t.Helper()
	if os.Getenv("RACKBOOT_E2E") != "1" {
		t.Skip("HA testbed: set RACKBOOT_E2E=1 (make e2e-ha)")
	}
	if err := netns.Available(); err != nil {
		t.Fatalf("RACKBOOT_E2E=1 but: %v", err)
	}
	if _, err := exec.LookPath("busybox"); err != nil {
		t.Fatalf("RACKBOOT_E2E=1 but busybox is missing: %v (make deps)", err)
	}
}

// newRack builds a rack of opts (Dir and Logf filled in) and closes it at
// the end of the test, keeping the nodes' logs in the test output when it
// failed.
func newRack(t *testing.T, ctx context.Context, opts Options) *Rack {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	opts.Logf = t.Logf
	if bin := os.Getenv("RACKBOOTD"); bin != "" && opts.Binary == "" {
		opts.Binary = bin // another build than bin/rackbootd (rackbootctl next to it)
	}
	r, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, n := range r.Nodes {
				t.Logf("--- %s log (last 60 lines)\n%s", n.Name, n.Tail(60))
			}
		}
		if err := r.Close(); err != nil {
			t.Logf("closing the rack: %v", err)
		}
	})
	return r
}

// testContext is a context bounded to limit, cancelled at the end of the
// test.
func testContext(t *testing.T, limit time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	t.Cleanup(cancel)
	return ctx
}
