package clusters

import (
	"context"
	"errors"
	"fmt"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
	"github.com/rackboot/rackboot/engine/validation"
)

// FromParams checks p and returns the cluster it describes.
func FromParams(p models.ClusterCreateParams) (engine.Cluster, string, error) {
	if p.Name == nil {
		return engine.Cluster{}, "", hosts.Invalid("name is required")
	}
	if p.OpenshiftVersion == nil {
		p.OpenshiftVersion = new(string)
	}
	if *p.OpenshiftVersion == "" && p.ImageSetRef == "" {
		return engine.Cluster{}, "", hosts.Invalid("openshift_version is required (or image_set_ref, whose version the cluster then takes)")
	}
	if p.PullSecret == nil {
		return engine.Cluster{}, "", hosts.Invalid("pull_secret is required")
	}
	switch p.HighAvailabilityMode {
	case "", "Full":
	case "None":
		if p.ControlPlaneCount == nil {
			one := int64(1)
			p.ControlPlaneCount = &one
		}
	default:
		return engine.Cluster{}, "", hosts.Invalid("high_availability_mode %q is not Full or None", hosts.Clip(p.HighAvailabilityMode))
	}
	defaultNetworks(&p)
	c := engine.Cluster{ID: NewID(), Name: *p.Name, BaseDomain: p.BaseDNSDomain,
		OpenshiftVersion: *p.OpenshiftVersion, SSHPublicKey: p.SSHPublicKey}
	var patch models.V2ClusterUpdateParams
	patch.APIVips, patch.IngressVips = &p.APIVips, &p.IngressVips
	patch.ClusterNetworks, patch.MachineNetworks, patch.ServiceNetworks = &p.ClusterNetworks, &p.MachineNetworks, &p.ServiceNetworks
	patch.ControlPlaneCount, patch.Name, patch.BaseDNSDomain, patch.PullSecret = p.ControlPlaneCount, p.Name, &p.BaseDNSDomain, p.PullSecret
	patch.NetworkType, patch.HoldInstallation = p.NetworkType, p.HoldInstallation
	cp, err := Patch(patch)
	if err != nil {
		return engine.Cluster{}, "", err
	}
	if err := CheckArch(p.CPUArchitecture); err != nil {
		return engine.Cluster{}, "", err
	}
	if hosts.NormArch(p.CPUArchitecture) != hosts.DefaultCPUArchitecture {
		return engine.Cluster{}, "", hosts.Invalid("cpu_architecture %q needs an image set of that architecture; only %s clusters can be created through the API",
			p.CPUArchitecture, hosts.DefaultCPUArchitecture)
	}
	c.APIVIPs, c.IngressVIPs, c.ClusterNetworks = *cp.APIVIPs, *cp.IngressVIPs, *cp.ClusterNetworks
	c.MachineNetworks, c.ServiceNetworks = *cp.MachineNetworks, *cp.ServiceNetworks
	if cp.ControlPlaneCount != nil {
		c.ControlPlaneCount = *cp.ControlPlaneCount
	}
	if cp.NetworkType != nil {
		c.NetworkType = *cp.NetworkType
	}
	if cp.HoldInstallation != nil {
		c.HoldInstallation = *cp.HoldInstallation
	}
	c.ImageSetRef = p.ImageSetRef
	return c, *p.PullSecret, nil
}

// Register checks p, stores its pull secret and creates the
// cluster (with id, a new one when ""), with its event; bad input writes
// nothing.
func (s *Service) Register(ctx context.Context, p models.ClusterCreateParams, id string) (string, error) {
	c, ps, err := FromParams(p)
	if err != nil {
		return "", err
	}
	if id != "" {
		c.ID = id
	}
	if c.ImageSetRef, err = s.defaultImageSet(c); err != nil {
		return "", err
	}
	if c.OpenshiftVersion == "" {
		c.OpenshiftVersion = s.imageSetVersion(c.ImageSetRef)
	}
	c.PullSecretRef = ClusterSecretName(c.ID)
	create := &engine.CreateCluster{Cluster: c}
	if err := engine.Check(s.store, create); err != nil { // before its pull secret is stored
		return "", fmt.Errorf("create cluster: %w", err)
	}
	if _, err := s.store.Apply(ctx, PutPullSecret(c.PullSecretRef, ps)); err != nil {
		return "", fmt.Errorf("store pull secret: %w", err)
	}
	if _, err := s.store.Apply(ctx, create); err != nil {
		return "", fmt.Errorf("create cluster: %w", err)
	}
	s.hosts.Event(ctx, engine.Event{Name: "cluster_registration_succeeded", Severity: "info", ClusterID: c.ID,
		Message: fmt.Sprintf("Successfully registered cluster %s", c.Name)})
	return c.ID, s.hosts.RefreshCluster(ctx, c.ID)
}

// Upstream's networks for a cluster created without them (assisted-service's
// DefaultClusterNetworkCidr, DefaultClusterNetworkHostPrefix,
// DefaultServiceNetworkCidr): OpenShift's own defaults.
const (
	defaultClusterNetwork    = "10.128.0.0/14"
	defaultClusterHostPrefix = 23
	defaultServiceNetwork    = "172.30.0.0/16"
)

// defaultNetworks gives p upstream's cluster and service networks when it
// leaves them out (an explicit empty list stays empty).
func defaultNetworks(p *models.ClusterCreateParams) {
	if p.ClusterNetworks == nil {
		p.ClusterNetworks = []models.ClusterNetwork{{CIDR: defaultClusterNetwork, HostPrefix: defaultClusterHostPrefix}}
	}
	if p.ServiceNetworks == nil {
		p.ServiceNetworks = []models.Network{{CIDR: defaultServiceNetwork}}
	}
}

// imageSetVersion is the version of the image set named ref.
func (s *Service) imageSetVersion(ref string) string {
	var v string
	s.store.Read(func(m *engine.Model) {
		if is, ok := m.ImageSet(ref); ok {
			v = is.Version
		}
	})
	return v
}

// Patch checks p and returns the engine patch (without the pull
// secret, which is stored apart).
func Patch(p models.V2ClusterUpdateParams) (engine.ClusterPatch, error) {
	cp := engine.ClusterPatch{Name: p.Name, BaseDomain: p.BaseDNSDomain, SSHPublicKey: p.SSHPublicKey}
	if p.Name != nil {
		if err := validation.ClusterName(*p.Name); err != nil {
			return cp, hosts.Invalid("%v", err)
		}
	}
	if p.BaseDNSDomain != nil {
		if err := CheckDomain(*p.BaseDNSDomain); err != nil {
			return cp, err
		}
	}
	if p.PullSecret != nil {
		if err := CheckPullSecret(*p.PullSecret); err != nil {
			return cp, err
		}
	}
	if p.ControlPlaneCount != nil {
		n := int(*p.ControlPlaneCount)
		if n != 1 && n != 3 && n != 5 || int64(n) != *p.ControlPlaneCount {
			return cp, hosts.Invalid("control_plane_count %d is not 1, 3 or 5", *p.ControlPlaneCount)
		}
		cp.ControlPlaneCount = &n
	}
	if p.NetworkType != nil {
		if err := CheckNetworkType(*p.NetworkType); err != nil {
			return cp, err
		}
		cp.NetworkType = p.NetworkType
	}
	cp.HoldInstallation = p.HoldInstallation
	var err error
	if cp.APIVIPs, err = ipList("api_vips", p.APIVips); err != nil {
		return cp, err
	}
	if cp.IngressVIPs, err = ipList("ingress_vips", p.IngressVips); err != nil {
		return cp, err
	}
	if cp.MachineNetworks, err = netList("machine_networks", p.MachineNetworks); err != nil {
		return cp, err
	}
	if cp.ServiceNetworks, err = netList("service_networks", p.ServiceNetworks); err != nil {
		return cp, err
	}
	if p.ClusterNetworks != nil {
		cns := []engine.ClusterNetwork{}
		for _, n := range *p.ClusterNetworks {
			if err := CheckCIDRs("cluster_networks", []string{n.CIDR}); err != nil {
				return cp, err
			}
			if n.HostPrefix < 1 || n.HostPrefix > 128 {
				return cp, hosts.Invalid("cluster_networks: host_prefix %d is out of range", n.HostPrefix)
			}
			cns = append(cns, engine.ClusterNetwork{CIDR: n.CIDR, HostPrefix: int(n.HostPrefix)})
		}
		cp.ClusterNetworks = &cns
	}
	return cp, nil
}

func ipList(field string, in *[]models.VIP) (*[]string, error) {
	if in == nil {
		return nil, nil
	}
	out := []string{}
	for _, ip := range *in {
		out = append(out, ip.IP)
	}
	return &out, CheckIPs(field, out)
}

func netList(field string, in *[]models.Network) (*[]string, error) {
	if in == nil {
		return nil, nil
	}
	out := []string{}
	for _, n := range *in {
		out = append(out, n.CIDR)
	}
	return &out, CheckCIDRs(field, out)
}

// Change checks p and updates cluster id (and its pull secret),
// with its event; bad input writes nothing.
func (s *Service) Change(ctx context.Context, id string, p models.V2ClusterUpdateParams) error {
	cp, err := Patch(p)
	if err != nil {
		return err
	}
	s.store.Read(func(m *engine.Model) { _, err = lookup(m, id) })
	if err != nil {
		return err
	}
	if p.PullSecret != nil {
		ref := ClusterSecretName(id)
		cp.PullSecretRef = &ref
	}
	update := &engine.UpdateCluster{ID: id, Patch: cp}
	if err := engine.Check(s.store, update); err != nil { // before its pull secret is stored
		return fmt.Errorf("update cluster: %w", err)
	}
	if p.PullSecret != nil {
		if _, err := s.store.Apply(ctx, PutPullSecret(*cp.PullSecretRef, *p.PullSecret)); err != nil {
			return fmt.Errorf("store pull secret: %w", err)
		}
	}
	res, err := s.store.Apply(ctx, update)
	if err != nil {
		return fmt.Errorf("update cluster: %w", err)
	}
	c, _ := res.(engine.Cluster)
	s.hosts.Event(ctx, engine.Event{Name: "cluster_updated", Severity: "info", ClusterID: id,
		Message: fmt.Sprintf("Cluster %s was updated", c.Name)})
	return s.hosts.RefreshCluster(ctx, id)
}

// SetRelease gives cluster id the image set named imageSetRef, or (when
// "") the one of version, resolved as Register resolves them, with the
// cluster_updated event; bad input writes nothing.
func (s *Service) SetRelease(ctx context.Context, id, version, imageSetRef string) error {
	var (
		c   engine.Cluster
		err error
	)
	s.store.Read(func(m *engine.Model) { c, err = lookup(m, id) })
	if err != nil {
		return err
	}
	if version == "" && imageSetRef == "" {
		return hosts.Invalid("openshift_version is required (or image_set_ref, whose version the cluster then takes)")
	}
	c.OpenshiftVersion, c.ImageSetRef = version, imageSetRef
	ref, err := s.defaultImageSet(c)
	if err != nil {
		return err
	}
	if version == "" {
		version = s.imageSetVersion(ref)
	}
	res, err := s.store.Apply(ctx, &engine.UpdateCluster{ID: id, Patch: engine.ClusterPatch{OpenshiftVersion: &version, ImageSetRef: &ref}})
	if err != nil {
		return fmt.Errorf("update cluster: %w", err)
	}
	c, _ = res.(engine.Cluster)
	s.hosts.Event(ctx, engine.Event{Name: "cluster_updated", Severity: "info", ClusterID: id,
		Message: fmt.Sprintf("Cluster %s was updated", c.Name)})
	return s.hosts.RefreshCluster(ctx, id)
}

// Deregister deletes cluster id and its pull secret, with its event.
func (s *Service) Deregister(ctx context.Context, id string) error {
	if err := s.clusterInUse(id); err != nil {
		return err
	}
	if _, err := s.store.Apply(ctx, &engine.DeleteCluster{ID: id}); err != nil {
		return fmt.Errorf("delete cluster: %w", err)
	}
	if _, err := s.store.Apply(ctx, &engine.DeleteSecret{Name: ClusterSecretName(id)}); err != nil && !errors.Is(err, engine.ErrNotFound) {
		return fmt.Errorf("delete pull secret: %w", err)
	}
	s.hosts.Event(ctx, engine.Event{Name: "cluster_deregistered", Severity: "info", ClusterID: id,
		Message: fmt.Sprintf("Deregistered cluster %s", id)})
	return nil
}

// clusterInUse refuses to delete a cluster that an infra-env or a host
// refers to (the engine would too, after a log entry).
func (s *Service) clusterInUse(id string) error {
	var err error
	s.store.Read(func(m *engine.Model) {
		if _, err = lookup(m, id); err != nil {
			return
		}
		for ie := range m.InfraEnvs() {
			if ie.ClusterID == id {
				err = fmt.Errorf("%w: cluster %s is used by infra-env %s", hosts.ErrConflict, id, ie.ID)
				return
			}
		}
		if m.ClusterHostCount(id) > 0 {
			err = fmt.Errorf("%w: cluster %s still has hosts (unbind them first)", hosts.ErrConflict, id)
		}
	})
	return err
}
