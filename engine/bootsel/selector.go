package bootsel

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"sync/atomic"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/boot/httpboot"
	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
)

// Sentinel errors of this package. A MAC that boots nothing gets an error
// wrapping boot.ErrNoBoot (the boot server answers 404).
var (
	// ErrOptions: New was given unusable options.
	ErrOptions = errors.New("bootsel: invalid options")
	// ErrNoImage: the infra-env a MAC boots has no boot profile (no image
	// set naming a known profile, and no default profile).
	ErrNoImage = errors.New("bootsel: no boot image for the infra-env")
	// ErrReservation: a reservation is malformed.
	ErrReservation = errors.New("bootsel: invalid reservation")
)

// Profiles finds the boot profiles (kernel, initrd, base command line)
// that image sets name in ImageSet.Profile: the daemon's configured
// profiles. ProfileMap is a ready one.
type Profiles interface {
	Profile(name string) (boot.Profile, bool)
}

// ProfileMap is a fixed set of profiles by name.
type ProfileMap map[string]boot.Profile

// Profile implements Profiles.
func (p ProfileMap) Profile(name string) (boot.Profile, bool) {
	pr, ok := p[name]
	return pr, ok
}

// NewProfileMap indexes profiles by name.
func NewProfileMap(profiles []boot.Profile) ProfileMap {
	m := ProfileMap{}
	for _, p := range profiles {
		m[p.Name] = p
	}
	return m
}

// Labeler is the seam for label-based assignment: it names the infra-env
// (by id or name) that mac boots because of a label — upstream's
// BareMetalHost labelled infraenvs.agent-install.openshift.io=<infra-env>
// whose bootMACAddress is mac. It is called with the model read-locked and
// must not call the store.
type Labeler interface {
	InfraEnvFor(m *engine.Model, mac net.HardwareAddr) (ref string, ok bool)
}

// Options configures a Selector.
type Options struct {
	// Store holds the model; required.
	Store engine.Store
	// Keys signs the agent tokens; required. Get it with
	// engine.LoadKeyRing so that the API verifies what this signs.
	Keys *auth.KeyRing
	// ServiceURL is the appliance's advertised base URL
	// (http://<advertise>:<port>), written as the agent's service_url;
	// required.
	ServiceURL string
	// Settings are the parts a configuration reload changes (Reload).
	Settings
	// Labels is the label-based assignment (BareMetalHosts); nil: none.
	Labels Labeler
	// MaxIgnition limits each config.ign (discovery.DefaultMaxSize when 0).
	MaxIgnition int
	// CacheSize bounds the built configs kept (DefaultCacheSize when 0).
	CacheSize int
	// Log receives decisions and failures (discarded when nil).
	Log *slog.Logger
}

// DefaultCacheSize is how many built configs a Selector keeps by default.
const DefaultCacheSize = 4096

// Selector is the engine's boot chooser: it implements httpboot.Chooser and
// dhcp.Booter over an engine.Store. Create it with New; call Run to keep
// its MAC index current (without Run every lookup scans the model).
type Selector struct {
	opts   Options
	log    *slog.Logger
	cur    atomic.Pointer[settings]
	index  liveIndex
	cache  *cache
	tokens *tokenCache
}

var (
	_ httpboot.Chooser = (*Selector)(nil)
	_ dhcp.Booter      = (*Selector)(nil)
)

// New checks opts and returns a Selector.
func New(opts Options) (*Selector, error) {
	switch {
	case opts.Store == nil:
		return nil, fmt.Errorf("%w: no store", ErrOptions)
	case opts.Keys == nil:
		return nil, fmt.Errorf("%w: no key ring", ErrOptions)
	}
	if err := checkServiceURL(opts.ServiceURL); err != nil {
		return nil, err
	}
	if opts.CacheSize <= 0 {
		opts.CacheSize = DefaultCacheSize
	}
	s := &Selector{opts: opts, log: opts.Log, cache: newCache(opts.CacheSize), tokens: newTokenCache(opts.Keys)}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if err := s.Reload(opts.Settings); err != nil {
		return nil, err
	}
	return s, nil
}

func checkServiceURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%w: ServiceURL %q is not an http(s) base URL", ErrOptions, raw)
	}
	return nil
}

// Run keeps the MAC index current by following the store's changes until
// ctx ends. Lookups made while it runs use the index; the index lags the
// store by the time a change takes to reach the feed.
func (s *Selector) Run(ctx context.Context) {
	s.index.follow(ctx, s.opts.Store)
}

// Bootable reports whether mac gets a boot at all: a registered host, a
// reservation, an NMState config, a label or the default infra-env assigns
// it to an existing infra-env. The DHCP server asks this.
func (s *Selector) Bootable(ctx context.Context, mac net.HardwareAddr) bool {
	_, err := s.Decide(ctx, mac)
	return err == nil
}

// Choose returns what mac boots: exit for a host that is installed, else
// its infra-env's discovery image (kernel, initrd and command line of the
// image set's profile) with the config.ign built for this host. An error
// wrapping boot.ErrNoBoot means mac boots nothing.
func (s *Selector) Choose(ctx context.Context, mac net.HardwareAddr) (boot.Choice, error) {
	cur := s.cur.Load()
	d, err := s.decideWith(cur, mac)
	if err != nil {
		return boot.Choice{}, err
	}
	if d.Installed {
		s.log.DebugContext(ctx, "installed host boots from disk", "mac", mac.String(), "host", d.HostID)
		return boot.Choice{Action: boot.ActionExit, Profile: d.InfraEnvName, Hostname: d.Hostname}, nil
	}
	ch, err := s.discovery(ctx, cur, mac, d)
	if err != nil {
		return boot.Choice{}, err
	}
	return ch, nil
}
