package redfish

import (
	"context"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sync"
)

// DefaultMaxImage bounds a virtual media download when Config.MaxImage is 0.
const DefaultMaxImage = 2 << 30

// Config configures a Service.
type Config struct {
	Username string
	Password string
	// MediaDir holds downloaded virtual media images (required).
	MediaDir string
	// MaxImage bounds the size of one image in bytes (default DefaultMaxImage).
	MaxImage int64
	// Client downloads images (default: no proxy, no redirects to other schemes).
	Client *http.Client
	Logger *slog.Logger
}

// Service is the Redfish emulator: an http.Handler over its Systems.
type Service struct {
	cfg      Config
	log      *slog.Logger
	mux      *http.ServeMux
	systems  map[string]*system
	order    []string
	sessions sessions
}

// system is one System with its mutable state, guarded by mu.
type system struct {
	System
	mu    sync.Mutex
	boot  BootOverride
	media Media
	seq   int
}

// New returns a service for systems. IDs must be unique and non-empty.
func New(cfg Config, systems ...System) (*Service, error) {
	if cfg.MediaDir == "" || cfg.Username == "" || cfg.Password == "" {
		return nil, fmt.Errorf("%w: MediaDir, Username and Password are required", ErrBadRequest)
	}
	if cfg.MaxImage <= 0 {
		cfg.MaxImage = DefaultMaxImage
	}
	if cfg.Client == nil {
		cfg.Client = downloadClient()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{cfg: cfg, log: cfg.Logger, systems: map[string]*system{}}
	for _, sys := range systems {
		if sys.ID == "" || !safeID(sys.ID) || s.systems[sys.ID] != nil || sys.Machine == nil {
			return nil, fmt.Errorf("%w: system %q: empty, unsafe or duplicate ID, or no machine", ErrBadRequest, sys.ID)
		}
		s.systems[sys.ID] = &system{System: sys, boot: BootOverride{Target: TargetNone, Enabled: EnabledDisabled}}
		s.order = append(s.order, sys.ID)
	}
	s.mux = s.routes()
	return s, nil
}

func safeID(id string) bool {
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return id != "." && id != ".."
}

// Boot returns system id's Boot override (for tests and logs).
func (s *Service) Boot(id string) (BootOverride, error) {
	sys, err := s.system(id)
	if err != nil {
		return BootOverride{}, err
	}
	sys.mu.Lock()
	defer sys.mu.Unlock()
	return sys.boot, nil
}

// Media returns system id's virtual CD slot (for tests and logs).
func (s *Service) Media(id string) (Media, error) {
	sys, err := s.system(id)
	if err != nil {
		return Media{}, err
	}
	sys.mu.Lock()
	defer sys.mu.Unlock()
	return sys.media, nil
}

func (s *Service) system(id string) (*system, error) {
	sys := s.systems[id]
	if sys == nil {
		return nil, fmt.Errorf("%w: system %q", ErrNotFound, id)
	}
	return sys, nil
}

// authorized checks HTTP Basic credentials in constant time.
func (s *Service) authorized(r *http.Request) bool {
	u, p, ok := r.BasicAuth()
	userOK := subtle.ConstantTimeCompare([]byte(u), []byte(s.cfg.Username))
	passOK := subtle.ConstantTimeCompare([]byte(p), []byte(s.cfg.Password))
	return ok && userOK&passOK == 1
}

// SetBoot changes system id's Boot override; empty fields stay as they are.
func (s *Service) SetBoot(id, target, enabled, mode string) error {
	sys, err := s.system(id)
	if err != nil {
		return err
	}
	if target != "" && !slices.Contains(targets, target) {
		return fmt.Errorf("%w: BootSourceOverrideTarget %q not one of %v", ErrBadRequest, target, targets)
	}
	if enabled != "" && !slices.Contains(enabledValues, enabled) {
		return fmt.Errorf("%w: BootSourceOverrideEnabled %q not one of %v", ErrBadRequest, enabled, enabledValues)
	}
	if mode != "" && mode != sys.mode() {
		return fmt.Errorf("%w: BootSourceOverrideMode %q: this machine's firmware is %s", ErrBadRequest, mode, sys.mode())
	}
	sys.mu.Lock()
	defer sys.mu.Unlock()
	if target != "" {
		sys.boot.Target = target
	}
	if enabled != "" {
		sys.boot.Enabled = enabled
	}
	s.log.Info("boot override set", "system", id, "mac", sys.MAC,
		"target", sys.boot.Target, "enabled", sys.boot.Enabled)
	return nil
}

var (
	targets       = []string{TargetNone, TargetPxe, TargetCd, TargetHdd}
	enabledValues = []string{EnabledDisabled, EnabledOnce, EnabledContinuous}
)

// Reset performs a ComputerSystem.Reset of resetType on system id.
func (s *Service) Reset(ctx context.Context, id, resetType string) error {
	sys, err := s.system(id)
	if err != nil {
		return err
	}
	if !slices.Contains(resetTypes, resetType) {
		return fmt.Errorf("%w: ResetType %q not one of %v", ErrBadRequest, resetType, resetTypes)
	}
	sys.mu.Lock()
	defer sys.mu.Unlock()
	s.log.Info("reset", "system", id, "mac", sys.MAC, "type", resetType)
	m := sys.Machine
	running := m.Running(ctx)
	switch {
	case resetType == "ForceOff" && running:
		err = m.Stop(ctx)
	case resetType == "GracefulShutdown" && running:
		err = m.Shutdown(ctx)
	case resetType == "ForceOff" || resetType == "GracefulShutdown" || resetType == "On" && running:
		return nil
	case !running:
		// On, and a restart of a machine that is off, power it on.
		return sys.powerOn(ctx)
	case resetType == "ForceRestart" && sys.boot.pending() == "":
		err = m.Reset(ctx)
	default:
		// PowerCycle, or ForceRestart with an override the running QEMU
		// cannot take: a cold start.
		if err := m.Stop(ctx); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrMachine, resetType, err)
		}
		return sys.powerOn(ctx)
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrMachine, resetType, err)
	}
	return nil
}

// powerOn starts the machine with the pending override and the CD; a Once
// override is used up. sys.mu is held.
func (sys *system) powerOn(ctx context.Context) error {
	opts := StartOptions{Boot: sys.boot.pending()}
	opts.Once = opts.Boot != "" && sys.boot.Enabled == EnabledOnce
	if sys.media.Inserted {
		opts.CD = sys.media.path
	}
	// QEMU outlives the request that started it.
	if err := sys.Machine.Start(context.WithoutCancel(ctx), opts); err != nil {
		return fmt.Errorf("%w: power on: %w", ErrMachine, err)
	}
	if sys.boot.Enabled == EnabledOnce {
		sys.boot = BootOverride{Target: TargetNone, Enabled: EnabledDisabled}
	}
	return nil
}

// removeFile deletes a downloaded image; a missing file is fine.
func removeFile(path string) {
	if path != "" {
		_ = os.Remove(path)
	}
}
