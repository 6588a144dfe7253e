package bmhctl

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/rackboot/rackboot/bmc"
	"github.com/rackboot/rackboot/bmc/redfish"
	"github.com/rackboot/rackboot/engine"
)

// Sentinel errors of this package.
var (
	// ErrOptions: New was given unusable options.
	ErrOptions = errors.New("bmhctl: invalid options")
	// ErrConfig: the BMH cannot be acted on as configured (missing or
	// unopenable credentials, unknown infra-env, bad annotation, no disk
	// matching the root device hints); the operator has to change it.
	ErrConfig = errors.New("bmhctl: configuration error")
)

// Defaults of Options.
const (
	DefaultBackoff    = 15 * time.Second
	DefaultMaxBackoff = 10 * time.Minute
	DefaultInterval   = 10 * time.Second
	// DefaultPowerInterval is how often the power states are read, as
	// Ironic's sync_power_state_interval.
	DefaultPowerInterval = 60 * time.Second
)

// Images hands out the BMC-friendly URL of an infra-env's discovery ISO
// (http, no query, ending .iso, at most 255 characters).
type Images interface {
	ISOURL(ctx context.Context, infraEnvID string) (string, error)
}

// DialFunc returns the driver of one BMC. The controller keeps a driver
// while the BMH's address and credentials stay the same.
type DialFunc func(addr bmc.Address, creds bmc.Credentials) bmc.Driver

// Options configures a Controller.
type Options struct {
	// Store holds the model; required.
	Store engine.Store
	// Images makes virtual-media URLs; required for virtual-media BMHs.
	Images Images
	// Unseal opens a sealed credentials value (engine.Sealer.Open);
	// required.
	Unseal func(secret, key string, sealed []byte) ([]byte, error)
	// Dial makes drivers (default: bmc/redfish with BMC's options).
	Dial DialFunc
	// BMC tunes the default drivers (timeouts, in-driver retries).
	BMC bmc.Options
	// Backoff is the wait after a first failure, doubled for each further
	// one up to MaxBackoff.
	Backoff, MaxBackoff time.Duration
	// Interval is how often Run looks at every BMH without a change.
	Interval time.Duration
	// PowerInterval is how often Run reads each idle BMH's power state
	// from its BMC and stores it when it changed (DefaultPowerInterval
	// when zero).
	PowerInterval time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Log receives what the controller does (discarded when nil).
	Log *slog.Logger
	// Loop counts Run's passes and the BMC failures (nil: not counted).
	Loop *engine.LoopStats
}

// Controller drives BareMetalHosts. Create it with New; Run it on the
// leader only.
type Controller struct {
	o Options

	mu      sync.Mutex
	busy    map[string]bool
	drivers map[string]driverEntry
}

type driverEntry struct {
	key string
	drv bmc.Driver
}

// New checks o and returns a Controller.
func New(o Options) (*Controller, error) {
	if o.Store == nil || o.Unseal == nil {
		return nil, fmt.Errorf("%w: Store and Unseal are required", ErrOptions)
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Dial == nil {
		opts, log := o.BMC, o.Log
		if opts.Logger == nil {
			opts.Logger = log.With("service", "bmc")
		}
		o.Dial = func(a bmc.Address, c bmc.Credentials) bmc.Driver { return redfish.New(a, c, opts) }
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.MaxBackoff < o.Backoff {
		o.MaxBackoff = max(DefaultMaxBackoff, o.Backoff)
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.PowerInterval == 0 {
		o.PowerInterval = DefaultPowerInterval
	}
	if o.PowerInterval <= 0 {
		return nil, fmt.Errorf("%w: PowerInterval %s is not positive", ErrOptions, o.PowerInterval)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Controller{o: o, busy: map[string]bool{}, drivers: map[string]driverEntry{}}, nil
}

// Run reconciles every BMH on each change of a BMH, host, infra-env or
// secret and every Interval, and refreshes the power states every
// PowerInterval, until ctx ends. One BMH is worked on by one goroutine at
// a time; a slow BMC holds up only its own BMH.
func (c *Controller) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	tick := time.NewTicker(c.o.Interval)
	defer tick.Stop()
	power := time.NewTicker(c.o.PowerInterval)
	defer power.Stop()
	changes := c.o.Store.Subscribe(ctx)
	for {
		c.o.Loop.Pass()
		c.start(ctx, &wg)
		select {
		case <-ctx.Done():
			return
		case <-power.C:
			c.each(ctx, &wg, c.refresh)
		case <-tick.C:
		case ch, ok := <-changes:
			if !ok {
				if ctx.Err() != nil {
					return
				}
				changes = c.o.Store.Subscribe(ctx)
				continue
			}
			if !relevant(ch.Kind) {
				continue
			}
			if !settle(ctx, changes) && ctx.Err() == nil {
				changes = c.o.Store.Subscribe(ctx)
			}
		}
	}
}

// settleTime is how long Run lets a burst of changes (agents checking in)
// go by before it looks at the BMHs again.
const settleTime = 100 * time.Millisecond

// settle drains changes for settleTime; false when the feed closed.
func settle(ctx context.Context, changes <-chan engine.Change) bool {
	t := time.NewTimer(settleTime)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return true
		case <-t.C:
			return true
		case _, ok := <-changes:
			if !ok {
				return false
			}
		}
	}
}

func relevant(k engine.Kind) bool {
	switch k {
	case engine.KindBareMetalHost, engine.KindHost, engine.KindInfraEnv, engine.KindSecret, engine.KindAll:
		return true
	}
	return false
}

// Reconcile works on every BMH not already being worked on and returns
// when those are done: one pass, for tests and for a caller with its own
// schedule.
func (c *Controller) Reconcile(ctx context.Context) {
	var wg sync.WaitGroup
	c.start(ctx, &wg)
	wg.Wait()
}

// start launches a reconcile for each BMH that has no worker.
func (c *Controller) start(ctx context.Context, wg *sync.WaitGroup) {
	c.each(ctx, wg, c.reconcile)
}

// each launches work for each BMH that has no worker: a BMH is worked on
// by one goroutine at a time, whether it reconciles or refreshes.
func (c *Controller) each(ctx context.Context, wg *sync.WaitGroup, work func(context.Context, string)) {
	var names []string
	c.o.Store.Read(func(m *engine.Model) {
		for b := range m.BareMetalHosts() {
			names = append(names, b.Name)
		}
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forget(names)
	for _, name := range names {
		if c.busy[name] {
			continue
		}
		c.busy[name] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.done(name)
			work(ctx, name)
		}()
	}
}

func (c *Controller) done(name string) {
	c.mu.Lock()
	delete(c.busy, name)
	c.mu.Unlock()
}

// forget drops the drivers of deleted BMHs; c.mu is held.
func (c *Controller) forget(names []string) {
	keep := make(map[string]bool, len(names))
	for _, n := range names {
		keep[n] = true
	}
	for n := range c.drivers {
		if !keep[n] {
			delete(c.drivers, n)
		}
	}
}

// driver returns the cached driver of BMH name for addr and creds, or a
// new one when either changed.
func (c *Controller) driver(name string, addr bmc.Address, creds bmc.Credentials) bmc.Driver {
	sum := sha256.Sum256([]byte(creds.Username + "\x00" + creds.Password))
	key := fmt.Sprintf("%s|%x|%t", addr, sum, creds.InsecureSkipVerify)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.drivers[name]; ok && e.key == key {
		return e.drv
	}
	d := c.o.Dial(addr, creds)
	c.drivers[name] = driverEntry{key: key, drv: d}
	return d
}

// backoff is the wait after the n-th failure in a row.
func (c *Controller) backoff(n int) time.Duration {
	d := c.o.Backoff
	for i := 1; i < n && d < c.o.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, c.o.MaxBackoff)
}
