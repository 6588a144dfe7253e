package downloads

import (
	"context"
	"errors"
	"fmt"
	"github.com/rackboot/rackboot/engine/models"
	"log/slog"
	"time"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/infraenvs"
)

// ErrOptions: New was given unusable options.
var ErrOptions = errors.New("downloads: invalid options")

// DefaultImageURLTTL is how long an image URL's token is valid when
// Options.ImageURLTTL is zero (upstream's).
const DefaultImageURLTTL = 4 * time.Hour

// ISOs hands out discovery ISO URLs (engine/isoserve).
type ISOs interface {
	// DiscoveryISOURL returns a URL of infra-env id's discovery ISO that
	// works until exp (the zero time: for good); ok is false when there
	// is no ISO to hand out (its image set names no base ISO).
	DiscoveryISOURL(ctx context.Context, id string, exp time.Time) (url string, ok bool, err error)
}

// PXE hands out an infra-env's PXE boot artifact URLs (engine/pxeserve):
// kernel, initrd, and the live rootfs ("" when its image set has none).
type PXE interface {
	BootArtifacts(ctx context.Context, id string) (kernel, initrd, rootfs string, err error)
}

// Options is what the service needs.
type Options struct {
	// Store holds the model; required.
	Store engine.Store
	// Keys signs the tokens of the URLs; required.
	Keys *auth.KeyRing
	// ServiceURL is the REST API's base URL as hosts reach it
	// (http://host:port, no path); required.
	ServiceURL string
	// BootURL is the boot server's base URL, which the iPXE script chains
	// to and the disk image is served from; empty: ServiceURL.
	BootURL string
	// Hosts is the host domain: the decoded inventories it reads and the
	// install step's hand-out. nil: one of its own over Store.
	Hosts *hosts.Service
	// ImageURLTTL is how long an image URL's token is valid
	// (DefaultImageURLTTL when zero).
	ImageURLTTL time.Duration
	// ISOs hands out discovery ISO URLs (nil: none; the REST API's image
	// URL is then the iPXE script's).
	ISOs ISOs
	// PXE hands out PXE boot artifact URLs (nil: none).
	PXE PXE
	// RemoteAgent is the rackboot-agent that infra-env ie's discovery
	// config fetches (engine/bootsel.Selector.RemoteAgent): nil for an
	// image set with the agent built in. nil: no remote agent.
	RemoteAgent func(m *engine.Model, ie engine.InfraEnv) (*discovery.RemoteAgent, error)
	// Now is the clock of token expiry (time.Now when nil).
	Now func() time.Time
	// Log receives what is worth a line (discarded when nil).
	Log *slog.Logger
}

// Service hands out the downloads. It keeps no state of its own.
type Service struct {
	o         Options
	infraEnvs *infraenvs.Service
}

// New returns the service over o's store.
func New(o Options) (*Service, error) {
	switch {
	case o.Store == nil:
		return nil, fmt.Errorf("%w: no store", ErrOptions)
	case o.Keys == nil:
		return nil, fmt.Errorf("%w: no key ring", ErrOptions)
	case o.ServiceURL == "":
		return nil, fmt.Errorf("%w: no service URL", ErrOptions)
	}
	if o.BootURL == "" {
		o.BootURL = o.ServiceURL
	}
	if o.ImageURLTTL <= 0 {
		o.ImageURLTTL = DefaultImageURLTTL
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	var err error
	if o.Hosts == nil {
		if o.Hosts, err = hosts.New(hosts.Options{Store: o.Store, Now: o.Now, Log: o.Log}); err != nil {
			return nil, err
		}
	}
	ies, err := infraenvs.New(infraenvs.Options{Store: o.Store, Hosts: o.Hosts, ServiceURL: o.ServiceURL})
	if err != nil {
		return nil, err
	}
	return &Service{o: o, infraEnvs: ies}, nil
}

// AgentToken is the token the agents of infra-env id authenticate with: it
// does not expire (rotating the signing keys retires it).
func (s *Service) AgentToken(id string) (string, error) {
	tok, err := s.o.Keys.Sign(auth.Claims{InfraEnvID: id, Subject: "agent"})
	if err != nil {
		return "", fmt.Errorf("sign agent token: %w", err)
	}
	return tok, nil
}

// infraEnvURL is the URL of infra-env id's path rest on the REST API.
func (s *Service) infraEnvURL(id, rest string) string {
	return s.o.ServiceURL + models.BasePath + "/infra-envs/" + id + rest
}
