package harness

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/rackboot/rackboot/bench/internal/topo"
	"github.com/rackboot/rackboot/testbed/netns"
)

// Common are the settings every benchmark command takes.
type Common struct {
	Rackbootd string        // binary under test
	Out       string        // Markdown report file besides stdout; "" for none
	Work      string        // work directory; "" for a temporary one
	Keep      bool          // keep the work directory
	Command   string        // command line named in the report
	QuietWait time.Duration // before each run, wait up to this long for a quiet machine
}

// Register adds the common flags to fs.
func (c *Common) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.Rackbootd, "rackbootd", "bin/rackbootd", "rackbootd binary to measure")
	fs.StringVar(&c.Out, "out", "", "also write the Markdown report to this file")
	fs.StringVar(&c.Work, "work", "", "directory for configs, logs and data files (default: a temporary one)")
	fs.BoolVar(&c.Keep, "keep", false, "keep the work directory")
	fs.StringVar(&c.Command, "command", "", "command line to print in the report (default: this one)")
	fs.DurationVar(&c.QuietWait, "quiet-wait", 20*time.Second, "before each run, wait up to this long for other work on the machine to calm down")
}

// DefaultCommand names the command line name args in the report unless
// -command did.
func (c *Common) DefaultCommand(name string, args []string) {
	if c.Command == "" {
		c.Command = strings.Join(append([]string{name}, args...), " ")
	}
}

// Run checks that network namespaces can be built, makes the work
// directory (-work, or a temporary one named after prefix), builds the
// benchmark topology (namespaces named after nsPrefix) and runs bench in it.
// It removes the topology and, unless -keep, a temporary work directory
// afterwards.
func (c *Common) Run(ctx context.Context, prefix, nsPrefix string, bench func(context.Context, *topo.Pair) error) error {
	cleanup, err := c.setup(prefix)
	if err != nil {
		return err
	}
	defer cleanup()
	pair, err := topo.New(ctx, nsPrefix)
	if err != nil {
		return fmt.Errorf("harness: %w", err)
	}
	defer pair.Close()
	return bench(ctx, pair)
}

// setup checks that network namespaces can be built and makes the work
// directory. The returned function removes a temporary one unless -keep.
func (c *Common) setup(prefix string) (cleanup func(), err error) {
	if err := netns.Available(); err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	cleanup = func() {}
	if c.Work == "" {
		if c.Work, err = os.MkdirTemp("", prefix+"-"); err != nil {
			return nil, fmt.Errorf("harness: %w", err)
		}
		if dir := c.Work; !c.Keep {
			cleanup = func() { os.RemoveAll(dir) }
		}
	}
	if err := os.MkdirAll(c.Work, 0o755); err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	slog.Info("work directory", "dir", c.Work)
	return cleanup, nil
}

// Subdir makes a fresh directory in the work directory for one server run.
func (c *Common) Subdir(name string) (string, error) {
	dir, err := os.MkdirTemp(c.Work, name+"-")
	if err != nil {
		return "", fmt.Errorf("harness: %w", err)
	}
	return dir, nil
}

// Emit writes the report to stdout and, with -out, to that file.
func (c *Common) Emit(write func(io.Writer) error) error {
	if err := write(os.Stdout); err != nil {
		return fmt.Errorf("harness: %w", err)
	}
	if c.Out == "" {
		return nil
	}
	f, err := os.Create(c.Out)
	if err != nil {
		return fmt.Errorf("harness: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("harness: %s: %w", c.Out, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("harness: %w", err)
	}
	return nil
}

// LoadAvg is the first three fields of /proc/loadavg ("unknown" when it
// cannot be read): other work on the machine during a run shows up here.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
