package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/rackboot/rackboot/testbed/netns"
)

// ErrLoad: a load generator failed or printed something that is not its
// result.
var ErrLoad = errors.New("harness: load generator")

// Loader is a load-generator subcommand: it runs inside the client
// namespace and returns what it measured, which Main prints as JSON.
type Loader func(ctx context.Context, args []string) (any, error)

// Main is the body of a benchmark command's main and returns its exit
// status. It logs with slog to stderr and runs, in a context that SIGINT
// and SIGTERM cancel, the loader args[0] names or else run(args). An error
// goes to stderr after name.
func Main(name string, args []string, loaders map[string]Loader, run func(context.Context, []string) error) int {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := dispatch(ctx, args, loaders, run); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 1
	}
	return 0
}

func dispatch(ctx context.Context, args []string, loaders map[string]Loader, run func(context.Context, []string) error) error {
	if len(args) == 0 || loaders[args[0]] == nil {
		return run(ctx, args)
	}
	res, err := loaders[args[0]](ctx, args[1:])
	if err != nil {
		return err
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		return fmt.Errorf("%w %s: %w", ErrLoad, args[0], err)
	}
	return nil
}

// Spawn re-executes this binary with args (a loader's name first) inside
// ns and decodes the JSON result it prints into out. The loader's stderr
// goes to ours.
func Spawn(ctx context.Context, ns *netns.NS, out any, args ...string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrLoad, err)
	}
	return spawn(ns.Command(ctx, exe, args...), out, args[0])
}

func spawn(cmd *exec.Cmd, out any, name string) error {
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%w %s: %w", ErrLoad, name, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%w %s: %w: %q", ErrLoad, name, err, b)
	}
	return nil
}
