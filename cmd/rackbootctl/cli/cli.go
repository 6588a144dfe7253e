package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// Defaults of the connection settings.
const (
	DefaultURL     = "http://127.0.0.1:8080"
	DefaultDataDir = "/var/lib/rackboot"
	tokenFile      = "admin-token"
)

// Sentinel errors.
var (
	ErrUsage   = errors.New("usage")
	ErrNoToken = errors.New("no admin token")
)

// Env is what Run needs from the process.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads the environment (os.Getenv in main).
	Getenv func(string) string
	// Version is rackbootctl's own version.
	Version string
	// Now is the clock for ages (time.Now when nil).
	Now func() time.Time
	// HTTP is the HTTP client (a default one when nil).
	HTTP *http.Client
}

// globals are the flags every verb accepts.
type globals struct {
	url, token, dataDir, config string
	verbose                     bool
}

func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.url, "url", g.url, "rackbootd API base `URL` (env RACKBOOT_URL; default "+DefaultURL+")")
	fs.StringVar(&g.token, "token", g.token, "admin `token` (env RACKBOOT_TOKEN; default: read <data-dir>/admin-token)")
	fs.StringVar(&g.dataDir, "data-dir", g.dataDir, "rackbootd data `dir`ectory holding admin-token (default "+DefaultDataDir+")")
	fs.StringVar(&g.config, "config", g.config, "config `file` (env RACKBOOT_CONFIG; default ~/.config/rackboot/rackbootctl.toml)")
	fs.BoolVar(&g.verbose, "v", g.verbose, "log each request (method, path, status) to stderr")
}

// app is one invocation.
type app struct {
	env Env
	g   globals
	cfg *fileConfig // loaded on first use
	api *client.Client
}

// usageError marks an error as a usage error (exit 2).
func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// Run runs rackbootctl with args (without the program name).
func Run(ctx context.Context, args []string, env Env) int {
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	a := &app{env: env}
	err := a.run(ctx, args)
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.Is(err, ErrUsage):
		fmt.Fprintf(env.Stderr, "error: %v\nRun 'rackbootctl help' for usage.\n", strings.TrimPrefix(err.Error(), "usage: "))
		return ExitUsage
	}
	url, _ := a.serverURL()
	fmt.Fprintf(env.Stderr, "error: %v\n", explain(err, url))
	return ExitError
}

func (a *app) run(ctx context.Context, args []string) error {
	fs := a.flagSet("rackbootctl")
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		a.usage(a.env.Stdout)
		return err
	case err != nil:
		return usageError("%v", err)
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return usageError("no command given")
	}
	verb, rest := rest[0], rest[1:]
	cmd, ok := a.commands()[verb]
	if !ok {
		return usageError("unknown command %q", verb)
	}
	return cmd(ctx, rest)
}

// flagSet returns a flag set with the global flags registered.
func (a *app) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	a.g.register(fs)
	return fs
}

// parse parses args with fs, allowing flags after positional arguments,
// and returns the positional arguments. -h prints fs's usage.
func (a *app) parse(fs *flag.FlagSet, args []string, synopsis string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(a.env.Stdout, "Usage: rackbootctl %s\n\nFlags:\n", synopsis)
				fs.SetOutput(a.env.Stdout)
				fs.PrintDefaults()
				return nil, err
			}
			if strings.Contains(err.Error(), "flag provided but not defined") {
				// e.g. a signing key's id (base64url) that starts with "-"
				return nil, usageError("%s: %v (an argument that starts with \"-\" goes after --)", fs.Name(), err)
			}
			return nil, usageError("%s: %v", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// client returns the API client, finding the token on first use.
func (a *app) client() (*client.Client, error) {
	if a.api != nil {
		return a.api, nil
	}
	tok, err := a.findToken()
	if err != nil {
		return nil, err
	}
	return a.newClient(tok)
}

func (a *app) newClient(tok string) (*client.Client, error) {
	url, err := a.serverURL()
	if err != nil {
		return nil, err
	}
	cfg := client.Config{URL: url, Token: tok, HTTP: a.env.HTTP, UserAgent: "rackbootctl/" + a.env.Version}
	if a.g.verbose {
		cfg.Log = slog.New(slog.NewTextHandler(a.env.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	c, err := client.New(cfg)
	if err != nil {
		return nil, usageError("%v", err)
	}
	a.api = c
	return c, nil
}

// findToken is --token, else RACKBOOT_TOKEN, else the config file's
// token, else the token file (see tokenPath).
func (a *app) findToken() (string, error) {
	if a.g.token != "" {
		return a.g.token, nil
	}
	if t := strings.TrimSpace(a.env.Getenv("RACKBOOT_TOKEN")); t != "" {
		return t, nil
	}
	c, err := a.loadConfig()
	if err != nil {
		return "", err
	}
	if c.Token != "" {
		return c.Token, nil
	}
	path := a.tokenPath(c)
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%w: --token and RACKBOOT_TOKEN are not set and %s cannot be read (%w)",
			ErrNoToken, path, errors.Unwrap(err))
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", fmt.Errorf("%w: %s is empty", ErrNoToken, path)
	}
	return t, nil
}

// explain adds a hint to errors a user can act on.
func explain(err error, url string) string {
	msg := err.Error()
	switch {
	case errors.Is(err, client.ErrUnauthorized):
		return msg + " — check --token, RACKBOOT_TOKEN or the admin-token file"
	case errors.Is(err, client.ErrForbidden):
		return msg + " — the token is not an admin token"
	}
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) && !errors.Is(err, ErrNoToken) && !errors.Is(err, client.ErrProtocol) &&
		!errors.Is(err, context.Canceled) && isNetError(err) {
		return fmt.Sprintf("cannot reach rackbootd at %s (set --url or RACKBOOT_URL): %s", url, msg)
	}
	return msg
}
