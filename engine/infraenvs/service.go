package infraenvs

import (
	"errors"
	"fmt"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/boot/nmstate"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
)

// ErrOptions: New was given unusable options.
var ErrOptions = errors.New("infraenvs: invalid options")

// Options is what the service needs.
type Options struct {
	// Store holds the model; required.
	Store engine.Store
	// Hosts records events; required.
	Hosts *hosts.Service
	// ServiceURL is the API's base URL as discovered hosts reach it, which
	// their discovery Ignition names.
	ServiceURL string
}

// Service registers, changes and deletes infra-envs and the static
// network configs made for them. It keeps no state of its own.
type Service struct {
	store      engine.Store
	hosts      *hosts.Service
	serviceURL string
}

// New returns the service over o's store. It writes to the store.
func New(o Options) (*Service, error) {
	switch {
	case o.Store == nil:
		return nil, fmt.Errorf("%w: no store", ErrOptions)
	case o.Hosts == nil:
		return nil, fmt.Errorf("%w: no host service", ErrOptions)
	}
	return &Service{store: o.Store, hosts: o.Hosts, serviceURL: o.ServiceURL}, nil
}

// DiscoveryInput is the discovery.Input of ie.
func (s *Service) DiscoveryInput(ie engine.InfraEnv, pullSecret, token string, static []nmstate.HostStaticNetworkConfig) discovery.Input {
	return DiscoveryInput(s.serviceURL, ie, pullSecret, token, static)
}

// DiscoveryInput is the discovery.Input of ie for hosts that reach the API
// at serviceURL: what both the downloaded discovery.ign and the config a
// network-booted host gets (engine/bootsel) are built from.
func DiscoveryInput(serviceURL string, ie engine.InfraEnv, pullSecret, token string, static []nmstate.HostStaticNetworkConfig) discovery.Input {
	in := discovery.Input{
		ServiceURL: serviceURL, InfraEnvID: ie.ID, AgentToken: token, PullSecret: pullSecret, StaticNetwork: static,
		SSHAuthorizedKey: ie.SSHAuthorizedKey, NTPSources: ie.NTPSources, IgnitionOverride: ie.IgnitionOverride,
	}
	if ie.Proxy != nil {
		in.Proxy = discovery.Proxy{HTTPProxy: ie.Proxy.HTTPProxy, HTTPSProxy: ie.Proxy.HTTPSProxy, NoProxy: ie.Proxy.NoProxy}
	}
	return in
}
