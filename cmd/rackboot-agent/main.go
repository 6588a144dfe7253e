// Command rackboot-agent runs inside the discovery image on each host: it
// registers the host with the rackboot appliance (the assisted-service v2
// agent API), reports its inventory and runs the steps it is given.
//
// Configuration, later sources winning: the JSON file named by --config
// (default /etc/rackboot/agent.conf when it exists), the environment
// (RACKBOOT_URL, RACKBOOT_INFRA_ENV_ID, RACKBOOT_TOKEN, or upstream's
// PULL_SECRET_TOKEN), then flags. Prefer the file or the environment for
// the token: flags are visible in /proc. The token is never logged.
//
// Exit status: 0 on SIGINT/SIGTERM, 2 for bad configuration, 3 when the
// service refused the agent for good (401/403/404/409), 1 otherwise.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/agent"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/inventory"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/protocol"
	"github.com/rackboot/rackboot/cmd/rackboot-agent/steps"
)

// version is set at link time with -ldflags "-X main.version=…".
var version = "rackboot-agent-dev"

// DefaultConfigPath is read when --config is not given and it exists.
const DefaultConfigPath = "/etc/rackboot/agent.conf"

const (
	exitFailure = 1
	exitConfig  = 2
	exitRefused = 3
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stderr)
	stop()
	os.Exit(code)
}

type options struct {
	cfg        agent.Config
	configPath string
	hostID     string
	logLevel   slog.Level
	showVer    bool
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("rackboot-agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.configPath, "config", "", "JSON config file {service_url, infra_env_id, token} (default "+DefaultConfigPath+" if it exists)")
	fs.StringVar(&o.cfg.URL, "url", "", "service base URL, e.g. http://10.0.0.1:8090 (env RACKBOOT_URL)")
	fs.StringVar(&o.cfg.InfraEnvID, "infra-env-id", "", "infra-env to register in (env RACKBOOT_INFRA_ENV_ID)")
	fs.StringVar(&o.cfg.Token, "token", "", "infra-env agent token, sent as X-Secret-Key (env RACKBOOT_TOKEN; prefer the env or config file)")
	fs.StringVar(&o.cfg.AgentVersion, "agent-version", "", "discovery_agent_version to report (default the binary's version)")
	fs.StringVar(&o.hostID, "host-id", "", "register under this host id instead of deriving it from DMI or MACs")
	fs.TextVar(&o.logLevel, "log-level", slog.LevelInfo, "log level: DEBUG, INFO, WARN or ERROR")
	fs.BoolVar(&o.showVer, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("%w: unexpected argument %q", agent.ErrConfig, fs.Arg(0))
	}
	return o, nil
}

// loadConfig merges file, environment and flags.
func loadConfig(o options, getenv func(string) string) (agent.Config, error) {
	var cfg agent.Config
	path := o.configPath
	if path == "" {
		if _, err := os.Stat(DefaultConfigPath); err == nil {
			path = DefaultConfigPath
		}
	}
	if path != "" {
		c, err := agent.LoadConfig(path)
		if err != nil {
			return cfg, err
		}
		cfg = c
	}
	env := agent.Config{URL: getenv("RACKBOOT_URL"), InfraEnvID: getenv("RACKBOOT_INFRA_ENV_ID"), Token: getenv("RACKBOOT_TOKEN")}
	if env.Token == "" {
		env.Token = getenv("PULL_SECRET_TOKEN")
	}
	cfg = cfg.Merge(env).Merge(o.cfg)
	if cfg.AgentVersion == "" {
		cfg.AgentVersion = version
	}
	return cfg, cfg.Check()
}

func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "rackboot-agent:", err)
		return exitConfig
	}
	if o.showVer {
		fmt.Fprintln(stderr, version)
		return 0
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: o.logLevel}))
	cfg, err := loadConfig(o, getenv)
	if err != nil {
		log.Error("cannot start", "err", err)
		return exitConfig
	}
	a, err := build(cfg, o.hostID, log)
	if err != nil {
		log.Error("cannot start", "err", err)
		return exitConfig
	}
	log.Info("rackboot-agent starting", "config", cfg, "host", a.HostID, "version", version)
	err = a.Run(ctx)
	switch {
	case ctx.Err() != nil:
		log.Info("rackboot-agent stopping")
		return 0
	case errors.Is(err, agent.ErrRefused):
		log.Error("the service refused this agent; stopping for good", "host", a.HostID, "err", err)
		return exitRefused
	case errors.Is(err, agent.ErrRebooted):
		log.Info("rackboot-agent stopping for the reboot")
		return 0
	case errors.Is(err, agent.ErrConfig):
		log.Error("cannot start", "err", err)
		return exitConfig
	}
	log.Error("rackboot-agent failed", "err", err)
	return exitFailure
}

func build(cfg agent.Config, hostID string, log *slog.Logger) (*agent.Agent, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("%w: service URL: %v", agent.ErrConfig, err)
	}
	clock := agent.NewApplianceClock(u.Host)
	client, err := protocol.New(protocol.Config{
		URL: cfg.URL, InfraEnvID: cfg.InfraEnvID, Token: cfg.Token,
		AgentVersion: cfg.AgentVersion, OnDate: clock.Observe,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", agent.ErrConfig, err)
	}
	if hostID == "" {
		var c inventory.Collector
		ifs, err := c.Interfaces()
		if err != nil {
			log.Warn("network interfaces unreadable for the host id", "err", err)
		}
		hostID = agent.HostID(os.DirFS("/"), ifs)
	}
	runner := steps.NewRunner(steps.Deps{Appliance: clock.Offset, Log: log, Install: client})
	return &agent.Agent{Service: client, Steps: runner, HostID: hostID, Log: log, Reboot: agent.SystemReboot,
		Backoff: agent.Backoff{Initial: agent.DefaultBackoffInitial, Max: agent.DefaultBackoffMax}}, nil
}
