package harness

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/testbed/netns"
)

func TestCommonFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	var c Common
	c.Register(fs)
	args := []string{"-work", "/tmp/w", "-keep", "-size", "5"}
	fs.Int("size", 0, "")
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

func TestSetupAndEmit(t *testing.T) {
	if err := netns.Available(); err != nil {
		t.Skip(err)
	}
	c := Common{Work: filepath.Join(t.TempDir(), "new", "work")}
	cleanup, err := c.Setup("harness-test")
	if err != nil {
		t.Fatal(err)
	}
	cleanup()
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

	var temp Common
	cleanup, err = temp.Setup("harness-test")
	if err != nil {
		t.Fatal(err)
	}
	cleanup()
	if _, err := os.Stat(temp.Work); !os.IsNotExist(err) {
		t.Errorf("temporary work directory %s left behind: %v", temp.Work, err)
	}
}

func TestDispatch(t *testing.T) {
	ran := ""
	run := func(_ context.Context, args []string) error { ran = strings.Join(args, " "); return nil }
	loaders := map[string]Loader{"load-x": func(_ context.Context, args []string) (any, error) {
		return nil, errors.New("loader got " + strings.Join(args, " "))
	}}
	if err := dispatch(t.Context(), []string{"-quick"}, loaders, run); err != nil || ran != "-quick" {
		t.Errorf("run: %v, ran %q", err, ran)
	}
	if err := dispatch(t.Context(), []string{"load-x", "-a"}, loaders, run); err == nil || err.Error() != "loader got -a" {
		t.Errorf("loader: %v", err)
	}
}

func TestSpawnDecodesResult(t *testing.T) {
	var out struct{ Downloads int }
	if err := spawn(exec.Command("echo", `{"Downloads": 3}`), &out, "load-x"); err != nil || out.Downloads != 3 {
		t.Errorf("%+v, %v", out, err)
	}
	err := spawn(exec.Command("echo", "not json"), &out, "load-x")
	if !errors.Is(err, ErrLoad) || !strings.Contains(err.Error(), "not json") {
		t.Errorf("garbage: %v", err)
	}
	if err := spawn(exec.Command("false"), &out, "load-x"); !errors.Is(err, ErrLoad) {
		t.Errorf("failing loader: %v", err)
	}
}

func TestLoadAvg(t *testing.T) {
	if f := strings.Fields(LoadAvg()); len(f) != 3 && LoadAvg() != "unknown" {
		t.Errorf("LoadAvg() = %q", LoadAvg())
	}
}
