package clusters

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// Domain is the domain the other front doors call (engine/acm's
// controllers: the Kubernetes-compatible API) by host id alone: the same
// services, so the same checks, commands and events, as the REST API's
// POST /clusters, PATCH of a host, the bind, unbind and install actions
// and DELETE of a host. Its input errors read as the reason alone.
type Domain struct {
	s *domainServices
}

type domainServices struct {
	store    engine.Store
	hosts    *hosts.Service
	clusters *Service
}

// NewDomain returns the domain over o's store. It writes to the store:
// use it on the leader.
func NewDomain(o hosts.Options) (*Domain, error) {
	hs, err := hosts.New(o)
	if err != nil {
		return nil, err
	}
	cs, err := New(Options{Store: o.Store, Hosts: hs, Log: o.Log})
	if err != nil {
		return nil, err
	}
	return &Domain{s: &domainServices{store: o.Store, hosts: hs, clusters: cs}}, nil
}

// inputError is a refusal of the caller's input: it wraps
// engine.ErrInvalid and reads as the reason alone.
type inputError struct{ err error }

func (e inputError) Error() string {
	return strings.TrimPrefix(e.err.Error(), hosts.ErrInvalid.Error()+": ")
}
func (e inputError) Unwrap() []error { return []error{engine.ErrInvalid, e.err} }

// domainErr marks the input errors among err as engine.ErrInvalid.
func domainErr(err error) error {
	var in inputError
	if err != nil && errors.Is(err, hosts.ErrInvalid) && !errors.As(err, &in) {
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

// SetClusterRelease gives cluster id the image set named imageSetRef, or
// (when "") the one of version, as POST /clusters resolves them (the
// same checks; bad input wraps engine.ErrInvalid and writes nothing).
func (d *Domain) SetClusterRelease(ctx context.Context, id, version, imageSetRef string) error {
	return domainErr(d.s.clusters.SetRelease(ctx, id, version, imageSetRef))
}

// PutManifest stores a custom manifest of cluster id (base64 content) as
// POST /clusters/{id}/manifests does (the same checks).
func (d *Domain) PutManifest(ctx context.Context, id string, p models.CreateManifestParams) error {
	_, err := d.s.clusters.PutManifest(ctx, id, p)
	return domainErr(err)
}

// DeleteManifest deletes custom manifest folder/fileName of cluster id as
// DELETE /clusters/{id}/manifests does (the same checks).
func (d *Domain) DeleteManifest(ctx context.Context, id, folder, fileName string) error {
	return domainErr(d.s.clusters.DeleteManifest(ctx, id, folder, fileName))
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

// SetInstallerArgs sets host id's installer_args as PATCH
// .../hosts/{id}/installer-args does (the same checks; bad input wraps
// engine.ErrInvalid and writes nothing).
func (d *Domain) SetInstallerArgs(ctx context.Context, id string, args []string) error {
	var ie string
	d.s.store.Read(func(m *engine.Model) {
		h, _ := m.Host(id)
		ie = h.InfraEnvID
	})
	return domainErr(d.s.hosts.SetInstallerArgs(ctx, ie, id, args))
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
// reason (a *NotReadyError when it is not ready).
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

// AdminCredentials are cluster id's kubeconfig and kubeadmin password
// (Service.AdminCredentials: readable in the statuses GET
// /clusters/{id}/credentials reads them in; each empty when its generator
// made none).
func (d *Domain) AdminCredentials(id string) (kubeconfig, password []byte, err error) {
	return d.s.clusters.AdminCredentials(id)
}
