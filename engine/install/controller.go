package install

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// Defaults of Options.
const (
	// DefaultTimeout is upstream's installation timeout.
	DefaultTimeout = 20 * time.Minute
	// DefaultPrepareTimeout bounds generating a cluster's install configs
	// (openshift-install takes well under a minute).
	DefaultPrepareTimeout = 10 * time.Minute
	// DefaultInterval is how often the controller looks at every cluster
	// even when nothing changed (for timeouts).
	DefaultInterval = 10 * time.Second
)

// Sentinel errors.
var (
	// ErrOptions: NewController was given unusable options.
	ErrOptions = errors.New("install: invalid options")
	// ErrPrepare: a cluster cannot be prepared (no generator, no pull
	// secret, the generator failed).
	ErrPrepare = errors.New("install: preparing the installation failed")
)

// Generators returns the generator of an image set. DefaultGenerators is
// the one rackbootd uses.
type Generators func(is engine.ImageSet) (installer.Generator, error)

// DefaultGenerators builds an image set's generator from its settings:
// openshift-install (ImageSet.OpenShiftInstall, working in workDir) or the
// user's role configs in ImageSet.RoleIgnitionDir.
func DefaultGenerators(workDir string, log *slog.Logger) Generators {
	return func(is engine.ImageSet) (installer.Generator, error) {
		switch is.Generator {
		case engine.GeneratorOpenShiftInstall:
			if is.OpenShiftInstall == "" {
				return nil, fmt.Errorf("%w: image set %s names no openshift-install binary", ErrPrepare, is.Name)
			}
			return installer.NewOpenShiftInstall(is.OpenShiftInstall, workDir, log), nil
		case "", engine.GeneratorUserConfigs:
			if is.RoleIgnitionDir == "" {
				return nil, fmt.Errorf("%w: image set %s has no role_ignition_dir", ErrPrepare, is.Name)
			}
			return installer.NewUserConfigs(is.RoleIgnitionDir), nil
		}
		return nil, fmt.Errorf("%w: image set %s: unknown generator %q", ErrPrepare, is.Name, is.Generator)
	}
}

// Options configures a Controller.
type Options struct {
	// Store holds the model; required.
	Store engine.Store
	// Generators gives each image set's generator; required.
	Generators Generators
	// Timeout is the installation timeout (DefaultTimeout when zero).
	Timeout time.Duration
	// PrepareTimeout bounds a cluster's preparation, the run of its
	// generator (DefaultPrepareTimeout when zero); past it the cluster
	// goes to error.
	PrepareTimeout time.Duration
	// Interval is the periodic pass (DefaultInterval when zero).
	Interval time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Log receives what the controller does (discarded when nil).
	Log *slog.Logger
	// Loop counts passes and failed cluster steps (nil: not counted).
	Loop *engine.LoopStats
}

// Controller drives installations. Create it with NewController and Run it
// on the leader.
type Controller struct {
	o   Options
	log *slog.Logger
	// preparing are the clusters whose preparation runs in its own
	// goroutine (a generator may take a while; other clusters go on).
	mu        sync.Mutex
	preparing map[string]bool
	wg        sync.WaitGroup
}

// NewController checks o.
func NewController(o Options) (*Controller, error) {
	if o.Store == nil || o.Generators == nil {
		return nil, fmt.Errorf("%w: a store and generators are required", ErrOptions)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.PrepareTimeout <= 0 {
		o.PrepareTimeout = DefaultPrepareTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	c := &Controller{o: o, log: o.Log, preparing: map[string]bool{}}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// Run passes over the clusters on every change of a cluster or host and
// every Interval, until ctx is done. Run it under engine.WhileLeader.
func (c *Controller) Run(ctx context.Context) {
	defer c.wg.Wait() // preparations in flight end with ctx
	tick := time.NewTicker(c.o.Interval)
	defer tick.Stop()
	changes := c.o.Store.Subscribe(ctx)
	for ctx.Err() == nil {
		c.Pass(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case ch, ok := <-changes:
			if !ok {
				changes = c.o.Store.Subscribe(ctx)
				continue
			}
			if !c.relevant(ch) {
				continue
			}
		}
		engine.Queued(changes) // one pass covers them
	}
}

func (c *Controller) relevant(ch engine.Change) bool {
	return ch.Kind == engine.KindCluster || ch.Kind == engine.KindHost || ch.Kind == engine.KindAll
}

// Pass looks at every cluster once and moves those that can move.
func (c *Controller) Pass(ctx context.Context) {
	c.o.Loop.Pass()
	var ids []string
	c.o.Store.Read(func(m *engine.Model) {
		for cl := range m.Clusters() {
			if slices.Contains(engine.ClusterInstalling(), cl.Status) {
				ids = append(ids, cl.ID)
			}
		}
	})
	for _, id := range ids {
		if ctx.Err() != nil {
			return
		}
		if err := c.step(ctx, id); err != nil && ctx.Err() == nil {
			c.o.Loop.Error()
			c.log.WarnContext(ctx, "install controller", "cluster", id, "err", err)
		}
	}
}

// step moves cluster id one step.
func (c *Controller) step(ctx context.Context, id string) error {
	var (
		cl    engine.Cluster
		hosts []engine.Host
	)
	c.o.Store.Read(func(m *engine.Model) {
		cl, _ = m.Cluster(id)
		hosts = slices.Collect(m.HostsOfCluster(id))
	})
	if !cl.InstallStartedAt.IsZero() && c.o.Now().Sub(cl.InstallStartedAt) > c.o.Timeout {
		return c.timeout(ctx, cl, hosts)
	}
	switch cl.Status {
	case engine.ClusterStatusPreparingForInstallation:
		c.startPrepare(ctx, cl)
		return nil
	case engine.ClusterStatusInstalling, engine.ClusterStatusInstallingPendingUserAction:
		return c.watchHosts(ctx, cl, hosts)
	case engine.ClusterStatusFinalizing:
		return c.finalize(ctx, cl)
	}
	return nil
}

// apply applies a transition; a conflict means someone moved first and is
// not an error.
func (c *Controller) apply(ctx context.Context, cmd engine.Command) (bool, error) {
	_, err := c.o.Store.Apply(ctx, cmd)
	if errors.Is(err, engine.ErrConflict) {
		return false, nil
	}
	return err == nil, err
}

// event records e; a failure is logged.
func (c *Controller) event(ctx context.Context, e engine.Event) {
	if _, err := c.o.Store.Apply(ctx, &engine.AppendEvent{Event: e}); err != nil {
		c.log.WarnContext(ctx, "event not recorded", "name", e.Name, "err", err)
	}
}

// clusterEvent records the cluster's move to status.
func (c *Controller) clusterEvent(ctx context.Context, id, status, info string) {
	sev := "info"
	if status == engine.ClusterStatusError {
		sev = "critical"
	}
	msg := fmt.Sprintf("Updated status of the cluster to %s", status)
	if info != "" {
		msg += " (" + info + ")"
	}
	c.event(ctx, engine.Event{Name: "cluster_status_updated", Severity: sev, ClusterID: id, Message: msg})
}

// hostEvents records the move of each host in hs to its changed status.
func (c *Controller) hostEvents(ctx context.Context, clusterID string, before []engine.Host, changes []engine.HostChange) {
	for _, ch := range changes {
		i := slices.IndexFunc(before, func(h engine.Host) bool { return h.ID == ch.ID })
		if i < 0 || before[i].Status == ch.Status {
			continue
		}
		h := before[i]
		sev := "info"
		if ch.Status == models.HostStatusError {
			sev = "error"
		}
		c.event(ctx, engine.Event{Name: "host_status_updated", Severity: sev, ClusterID: clusterID,
			InfraEnvID: h.InfraEnvID, HostID: h.ID,
			Message: fmt.Sprintf("Host %s: updated status from %s to %s (%s)", name(h), h.Status, ch.Status, ch.Info)})
	}
}

// name is a host's name in events.
func name(h engine.Host) string {
	if n := HostDetails(h).Hostname; n != "" {
		return n
	}
	return h.ID
}
