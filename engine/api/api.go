package api

import (
	"context"
	"errors"
	"fmt"
	"github.com/rackboot/rackboot/engine/models"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/bmhs"
	"github.com/rackboot/rackboot/engine/clusters"
	"github.com/rackboot/rackboot/engine/downloads"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/infraenvs"
	"github.com/rackboot/rackboot/engine/signingkeys"
	"github.com/rackboot/rackboot/engine/validation"
)

// BasePath is where the API is mounted.
const BasePath = models.BasePath

// Protocol constants: image URL lifetime (Options.ImageURLTTL default),
// the agents' poll interval and runner retry, as upstream.
const (
	DefaultImageURLTTL     = downloads.DefaultImageURLTTL
	DefaultPollSeconds     = 60
	DefaultRunnerRetrySecs = 60
	nextStepRunnerCommand  = "next_step_runner"
)

// ErrOptions: New was given unusable options.
var ErrOptions = errors.New("api: invalid options")

// Options is everything the handler needs.
type Options struct {
	// Store holds the model; required.
	Store engine.Store
	// AdminToken is the user API's bearer token; required.
	AdminToken string
	// Keys signs and verifies agent tokens; required.
	Keys *auth.KeyRing
	// ServiceURL is the API's base URL as discovered hosts reach it
	// (http://host:port, no /api path); required. The agent config and
	// image URLs point there.
	ServiceURL string
	// BootURL is the boot server's base URL (http://host:port) that the
	// iPXE script chains to; empty: ServiceURL.
	BootURL string
	// ImageURLTTL is how long an image URL's token is valid
	// (DefaultImageURLTTL when zero).
	ImageURLTTL time.Duration
	// Thresholds returns the hardware minimums of a cluster whose image set
	// has no thresholds of its own (clusterID is "" for an unbound host
	// whose infra-env's image set has none); nil means upstream's. An image
	// set's thresholds (engine.ImageSet.Thresholds) replace these, keeping
	// their DisconnectAfter.
	Thresholds func(m *engine.Model, clusterID string) validation.Thresholds
	// Now is the clock for validations and token expiry (time.Now when nil).
	Now func() time.Time
	// Log receives request and failure logs (discarded when nil).
	Log *slog.Logger
	// Sealer seals BMC credentials before they are stored (nil: the API
	// refuses BareMetalHost credentials).
	Sealer *engine.Sealer
	// StepInterval is how long a host is not handed the same periodic
	// step (connectivity-check, ntp-synchronizer, domain-resolution) with
	// unchanged arguments again (hosts.DefaultStepInterval when zero).
	StepInterval time.Duration
	// ISOs hands out discovery ISO URLs for downloads/image-url
	// (engine/isoserve); nil, or an infra-env whose image set has no base
	// ISO, gets the URL of its iPXE script instead.
	ISOs DiscoveryISOs
	// RemoteAgent is the rackboot-agent that infra-env ie's discovery
	// config fetches (engine/bootsel.Selector.RemoteAgent): nil for an
	// image set with the agent built in. The downloaded discovery.ign then
	// carries it as the booted config does, so a stock CoreOS live image
	// booted with that file runs the agent. nil: no remote agent.
	RemoteAgent func(m *engine.Model, ie engine.InfraEnv) (*discovery.RemoteAgent, error)
}

// HostOptions are the options of the host domain (engine/hosts) that the
// handler calls; Monitor runs over the same.
func (o Options) HostOptions() hosts.Options {
	return hosts.Options{Store: o.Store, Thresholds: o.Thresholds, Now: o.Now, Log: o.Log, StepInterval: o.StepInterval}
}

// DiscoveryISOs hands out the URL of an infra-env's discovery ISO.
type DiscoveryISOs interface {
	// DiscoveryISOURL returns a URL of infra-env id's discovery ISO that
	// works until exp; ok is false when there is no ISO to hand out.
	DiscoveryISOURL(ctx context.Context, id string, exp time.Time) (url string, ok bool, err error)
}

// server is the handler's state: its options and the host domain it calls
// (engine/hosts).
type server struct {
	store       engine.Store
	admin       string
	keys        *auth.KeyRing
	log         *slog.Logger
	mux         *http.ServeMux
	hosts       *hosts.Service
	clusters    *clusters.Service
	infraEnvs   *infraenvs.Service
	bmhs        *bmhs.Service
	signingKeys *signingkeys.Service
	downloads   *downloads.Service
	stale       map[string]bool // staleRoutes
}

// New returns the API handler. It serves every path under BasePath and
// answers anything else with 404.
func New(o Options) (http.Handler, error) {
	s, err := newServer(o)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func newServer(o Options) (*server, error) {
	switch {
	case o.Store == nil:
		return nil, fmt.Errorf("%w: no store", ErrOptions)
	case o.AdminToken == "":
		return nil, fmt.Errorf("%w: no admin token", ErrOptions)
	case o.Keys == nil:
		return nil, fmt.Errorf("%w: no key ring", ErrOptions)
	}
	svc, err := baseURL("ServiceURL", o.ServiceURL)
	if err != nil {
		return nil, err
	}
	boot := svc
	if o.BootURL != "" {
		if boot, err = baseURL("BootURL", o.BootURL); err != nil {
			return nil, err
		}
	}
	s := &server{
		store: o.Store, admin: o.AdminToken, keys: o.Keys,
		log: o.Log, stale: staleRoutes(),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.hosts, err = hosts.New(o.HostOptions()); err != nil {
		return nil, err
	}
	if s.clusters, err = clusters.New(clusters.Options{Store: o.Store, Hosts: s.hosts, Log: o.Log}); err != nil {
		return nil, err
	}
	if s.infraEnvs, err = infraenvs.New(infraenvs.Options{Store: o.Store, Hosts: s.hosts, ServiceURL: svc}); err != nil {
		return nil, err
	}
	if s.bmhs, err = bmhs.New(bmhs.Options{Store: o.Store, Hosts: s.hosts, Sealer: o.Sealer, Log: o.Log}); err != nil {
		return nil, err
	}
	if s.signingKeys, err = signingkeys.New(signingkeys.Options{Store: o.Store, Keys: o.Keys, Hosts: s.hosts, Log: o.Log}); err != nil {
		return nil, err
	}
	if s.downloads, err = downloads.New(downloads.Options{Store: o.Store, Keys: o.Keys, ServiceURL: svc, BootURL: boot,
		Hosts: s.hosts, ImageURLTTL: o.ImageURLTTL, ISOs: o.ISOs, RemoteAgent: o.RemoteAgent, Now: o.Now, Log: o.Log}); err != nil {
		return nil, err
	}
	s.mux = http.NewServeMux()
	for _, rt := range s.routes() {
		s.mux.Handle(rt.method+" "+BasePath+rt.path, s.wrap(rt))
	}
	return s, nil
}

// baseURL checks an http(s) base URL without credentials, query or
// fragment and returns it without a trailing slash.
func baseURL(name, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%w: %s %q is not an http(s) base URL", ErrOptions, name, raw)
	}
	return strings.TrimRight(raw, "/"), nil
}

// ServeHTTP routes r; unknown paths and methods get upstream's error
// document.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, pattern := s.mux.Handler(r); pattern != "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	if allow := s.allowed(r); len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		s.writeError(w, r, fmt.Errorf("%w: %s %s", ErrMethod, r.Method, r.URL.Path))
		return
	}
	s.writeError(w, r, fmt.Errorf("%w: no route %s", ErrNotFound, r.URL.Path))
}

// allowed lists the methods r's path has.
func (s *server) allowed(r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		c := r.Clone(r.Context())
		c.Method = m
		if _, p := s.mux.Handler(c); p != "" {
			out = append(out, m)
		}
	}
	return out
}

// Monitor runs the host monitor of the host domain over o
// (hosts.Service.Monitor, no loop counts) until ctx is done: for programs
// that wire the REST API alone (the benchmarks, the testbed). Run it on
// the leader only.
func Monitor(ctx context.Context, o Options, interval time.Duration) error {
	mon, err := hosts.New(o.HostOptions())
	if err != nil {
		return err
	}
	return mon.Monitor(ctx, interval, nil)
}
