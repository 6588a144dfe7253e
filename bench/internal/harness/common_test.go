package harness

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/bench/internal/topo"
	"github.com/rackboot/rackboot/testbed/netns"
)

func TestCommonFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	var c Common
	c.Register(fs)
	fs.Int("size", 0, "")
	args := []string{"-work", "/tmp/w", "-keep", "-size", "5"}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	c.DefaultCommand("bench", args)
	if c.Rackbootd != "bin/rackbootd" || c.Work != "/tmp/w" || !c.Keep || c.Command != "bench -work /tmp/w -keep -size 5" {
		t.Errorf("%+v", c)
	}
	c.DefaultCommand("other", nil)
	if c.Command != "bench -work /tmp/w -keep -size 5" {
		t.Errorf("DefaultCommand replaced %q", c.Command)
	}
}

// TestRunBuildsAndRemovesEverything: the body runs in a topology with a
// work directory, and a temporary work directory is gone afterwards.
func TestRunBuildsAndRemovesEverything(t *testing.T) {
	if err := netns.Available(); err != nil {
		t.Skip(err)
	}
	var c Common
	boom := errors.New("boom")
	err := c.Run(t.Context(), "harness-test", "ht", func(_ context.Context, pair *topo.Pair) error {
		if pair.Server == nil || pair.Client == nil {
			t.Error("no namespaces")
		}
		if st, err := os.Stat(c.Work); err != nil || !st.IsDir() {
			t.Errorf("work directory %q: %v", c.Work, err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("Run returned %v, want the body's error", err)
	}
	if _, err := os.Stat(c.Work); !os.IsNotExist(err) {
		t.Errorf("temporary work directory %s left behind: %v", c.Work, err)
	}
}

func TestSubdirAndEmit(t *testing.T) {
	c := Common{Work: filepath.Join(t.TempDir(), "new", "work")}
	if err := os.MkdirAll(c.Work, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := c.Subdir("server")
	if err != nil || !strings.HasPrefix(filepath.Base(dir), "server-") {
		t.Fatalf("Subdir: %q, %v", dir, err)
	}
	c.Out = filepath.Join(dir, "report.md")
	if err := c.Emit(func(w io.Writer) error { _, err := io.WriteString(w, "## report\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(c.Out); err != nil || string(b) != "## report\n" {
		t.Errorf("report file: %q, %v", b, err)
	}
	boom := errors.New("boom")
	if err := c.Emit(func(io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("Emit error %v, want boom", err)
	}
}

func TestLoadAvg(t *testing.T) {
	if s := LoadAvg(); len(strings.Fields(s)) != 3 && s != "unknown" {
		t.Errorf("LoadAvg() = %q", s)
	}
}
