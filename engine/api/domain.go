package api

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// Domain is the cluster part of the domain the REST handlers call,
// offered with no HTTP to the other front doors (engine/acm's
// ClusterDeployment and AgentClusterInstall controller): the same checks,
// commands and events as POST /clusters, /hosts/{id}/actions/bind and
// /clusters/{id}/actions/install.
type Domain struct{ s *server }

// NewDomain returns the domain over o's store (o is the handler's
// Options). It writes to the store: use it on the leader.
func NewDomain(o Options) (*Domain, error) {
	s, err := newServer(o)
	if err != nil {
		return nil, err
	}
	return &Domain{s: s}, nil
}

// inputError is a refusal of the caller's input: it wraps
// engine.ErrInvalid and reads as the reason alone.
type inputError struct{ err error }

func (e inputError) Error() string {
	return strings.TrimPrefix(e.err.Error(), ErrBadRequest.Error()+": ")
}
func (e inputError) Unwrap() []error { return []error{engine.ErrInvalid, e.err} }

// domainErr marks the input errors among err as engine.ErrInvalid.
func domainErr(err error) error {
	var in inputError
	if err != nil && errors.Is(err, ErrBadRequest) && !errors.As(err, &in) {
		return inputError{err}
	}
	return err
}

// CreateCluster registers the cluster p describes with id (a new one when
// ""), as POST /clusters does, and returns its id. Bad input wraps
// engine.ErrInvalid and writes nothing.
func (d *Domain) CreateCluster(ctx context.Context, p models.ClusterCreateParams, id string) (string, error) {
	id, err := d.s.clusters.Register(ctx, p, id)
	return id, domainErr(err)
}

// UpdateCluster changes cluster id as PATCH /clusters/{id} does (the
// same checks; bad input wraps engine.ErrInvalid and writes nothing).
func (d *Domain) UpdateCluster(ctx context.Context, id string, p models.V2ClusterUpdateParams) error {
	return domainErr(d.s.clusters.Change(ctx, id, p))
}

// PutManifest stores a custom manifest of cluster id (base64 content) as
// POST /clusters/{id}/manifests does (the same checks).
func (d *Domain) PutManifest(ctx context.Context, id string, p models.CreateManifestParams) error {
	_, err := d.s.clusters.PutManifest(ctx, id, p)
	return domainErr(err)
}

// UpdateHost changes host id as PATCH /infra-envs/{ie}/hosts/{id} does
// (the same checks: role, hostname, installation disk, Ignition
// overrides; bad input wraps engine.ErrInvalid and writes nothing).
func (d *Domain) UpdateHost(ctx context.Context, id string, p models.HostUpdateParams) error {
	var ie string
	d.s.store.Read(func(m *engine.Model) {
		h, _ := m.Host(id)
		ie = h.InfraEnvID
	})
	return domainErr(d.s.hosts.ChangeHost(ctx, ie, id, p))
}

// BindHost binds host id (of its infra-env) to cluster clusterID, as the
// bind action does.
func (d *Domain) BindHost(ctx context.Context, id, clusterID string) error {
	var ie string
	d.s.store.Read(func(m *engine.Model) {
		h, _ := m.Host(id)
		ie = h.InfraEnvID
	})
	return domainErr(d.s.hosts.Bind(ctx, ie, id, clusterID))
}

// InstallCluster starts the installation of cluster id, as the install
// action does; a cluster that cannot install yet is refused with the
// reason (a *clusters.NotReadyError when it is not ready).
func (d *Domain) InstallCluster(ctx context.Context, id string) error {
	return domainErr(d.s.clusters.StartInstall(ctx, id))
}

// DeleteCluster deregisters the hosts of cluster id, then the cluster, as
// upstream's deregistration does (DELETE of each host, then of the
// cluster); an infra-env still bound to the cluster keeps it (ErrConflict).
func (d *Domain) DeleteCluster(ctx context.Context, id string) error {
	var hosts []engine.Host
	d.s.store.Read(func(m *engine.Model) {
		for h := range m.HostsOfCluster(id) {
			hosts = append(hosts, h)
		}
	})
	for _, h := range hosts {
		if err := d.s.hosts.Deregister(ctx, h.InfraEnvID, h.ID); err != nil {
			return fmt.Errorf("deregister host %s: %w", h.ID, err)
		}
	}
	return domainErr(d.s.clusters.Deregister(ctx, id))
}

// DeregisterHost deletes host id of infra-env ie with its event and
// re-evaluates its cluster, as DELETE of the host does.
func (d *Domain) DeregisterHost(ctx context.Context, ie, id string) error {
	return domainErr(d.s.hosts.Deregister(ctx, ie, id))
}

// UnbindHost unbinds host id of infra-env ie from its cluster with its
// event, as the REST API's unbind action does.
func (d *Domain) UnbindHost(ctx context.Context, ie, id string) error {
	return domainErr(d.s.hosts.Unbind(ctx, ie, id))
}

// FailingValidations lists what keeps cluster id from installing (its
// failing validations, then those of its hosts that are not known).
func (d *Domain) FailingValidations(id string) []models.FailingValidation {
	var out []models.FailingValidation
	d.s.store.Read(func(m *engine.Model) {
		if c, ok := m.Cluster(id); ok {
			out = d.s.clusters.FailingValidations(m, c)
		}
	})
	return out
}
