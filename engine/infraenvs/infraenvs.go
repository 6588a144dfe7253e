package infraenvs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/boot/nmstate"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/clusters"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// Image types upstream accepts (ImageFull when none is given).
const (
	ImageFull    = "full-iso"
	ImageMinimal = "minimal-iso"
)

// splitNTP splits upstream's comma-separated additional_ntp_sources.
func splitNTP(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func checkImageType(t string) error {
	switch t {
	case "", ImageFull, ImageMinimal:
		return nil
	}
	return hosts.Invalid("image_type %q is not %s or %s", hosts.Clip(t), ImageFull, ImageMinimal)
}

// applyProxy merges p into dst.
func applyProxy(dst *engine.Proxy, p *models.Proxy) {
	if p == nil {
		return
	}
	for _, f := range []struct {
		to   *string
		from *string
	}{{&dst.HTTPProxy, p.HTTPProxy}, {&dst.HTTPSProxy, p.HTTPSProxy}, {&dst.NoProxy, p.NoProxy}} {
		if f.from != nil {
			*f.to = *f.from
		}
	}
}

// checkDiscovery builds the discovery Ignition of ie with pull secret ps
// to check every field (the Ignition override above all); the error is
// the builder's, which holds no secret.
func (s *Service) checkDiscovery(ie engine.InfraEnv, ps string, static []nmstate.HostStaticNetworkConfig) error {
	_, err := discovery.Build(s.DiscoveryInput(ie, ps, "validation-only", static))
	return err
}

// Register checks p, stores its pull secret and static network configs
// and creates the infra-env, with its event, and returns its id; bad input
// writes nothing.
func (s *Service) Register(ctx context.Context, p models.InfraEnvCreateParams) (string, error) {
	ie, ps, err := s.fromParams(p)
	if err != nil {
		return "", err
	}
	if ie.ClusterID != "" {
		if err := s.hosts.CheckClusterArch(ie.ClusterID, ie.CPUArchitecture); err != nil {
			return "", err
		}
	}
	ie.PullSecretRef = clusters.InfraEnvSecretName(ie.ID)
	if len(p.StaticNetworkConfig) > 0 {
		ie.StaticNetworkSelector = StaticSelector(ie.ID)
	}
	create := &engine.CreateInfraEnv{InfraEnv: ie}
	if err := engine.Check(s.store, create); err != nil { // before its pull secret is stored
		return "", fmt.Errorf("create infra-env: %w", err)
	}
	if _, err := s.store.Apply(ctx, clusters.PutPullSecret(ie.PullSecretRef, ps)); err != nil {
		return "", fmt.Errorf("store pull secret: %w", err)
	}
	if len(p.StaticNetworkConfig) > 0 {
		if err := s.ReplaceStaticNetwork(ctx, ie.ID, NMStateHosts(p.StaticNetworkConfig)); err != nil {
			return "", err
		}
	}
	if _, err := s.store.Apply(ctx, create); err != nil {
		_, _ = s.store.Apply(ctx, &engine.DeleteSecret{Name: ie.PullSecretRef})
		_ = s.DeleteStaticNetwork(ctx, ie.ID)
		return "", fmt.Errorf("create infra-env: %w", err)
	}
	s.hosts.Event(ctx, engine.Event{Name: "infra_env_registration_succeeded", Severity: "info", InfraEnvID: ie.ID,
		ClusterID: ie.ClusterID, Message: fmt.Sprintf("Registered infra env %s", ie.Name)})
	return ie.ID, nil
}

// fromParams checks p and returns the infra-env and pull secret.
func (s *Service) fromParams(p models.InfraEnvCreateParams) (engine.InfraEnv, string, error) {
	if p.Name == nil {
		return engine.InfraEnv{}, "", hosts.Invalid("name is required")
	}
	if err := clusters.CheckName("infra-env", *p.Name); err != nil {
		return engine.InfraEnv{}, "", err
	}
	if p.PullSecret == nil {
		return engine.InfraEnv{}, "", hosts.Invalid("pull_secret is required")
	}
	if err := clusters.CheckPullSecret(*p.PullSecret); err != nil {
		return engine.InfraEnv{}, "", err
	}
	if err := clusters.CheckArch(p.CPUArchitecture); err != nil {
		return engine.InfraEnv{}, "", err
	}
	if err := checkImageType(p.ImageType); err != nil {
		return engine.InfraEnv{}, "", err
	}
	ie := engine.InfraEnv{ID: clusters.NewID(), Name: *p.Name, CPUArchitecture: hosts.NormArch(p.CPUArchitecture),
		IgnitionOverride: p.IgnitionConfigOverride, ImageType: p.ImageType}
	if ie.ImageType == "" {
		ie.ImageType = ImageFull
	}
	kargs, err := KernelArgs(p.KernelArguments)
	if err != nil {
		return ie, "", err
	}
	ie.KernelArguments = kargs
	if p.ClusterID != nil && *p.ClusterID != "" {
		if err := clusters.CheckUUID("cluster_id", *p.ClusterID); err != nil {
			return ie, "", err
		}
		ie.ClusterID = *p.ClusterID
	}
	if p.SSHAuthorizedKey != nil {
		ie.SSHAuthorizedKey = *p.SSHAuthorizedKey
	}
	if p.AdditionalNtpSources != nil {
		ie.NTPSources = splitNTP(*p.AdditionalNtpSources)
	}
	if p.Proxy != nil {
		ie.Proxy = &engine.Proxy{}
		applyProxy(ie.Proxy, p.Proxy)
	}
	if err := s.checkDiscovery(ie, *p.PullSecret, NMStateHosts(p.StaticNetworkConfig)); err != nil {
		return ie, "", err
	}
	return ie, *p.PullSecret, nil
}

// Change checks p and updates infra-env id (its pull secret and static
// network configs too), with its event; bad input writes nothing.
func (s *Service) Change(ctx context.Context, id string, p models.InfraEnvUpdateParams) error {
	var (
		ie     engine.InfraEnv
		ps     string
		static []nmstate.HostStaticNetworkConfig
		ok     bool
	)
	s.store.Read(func(m *engine.Model) {
		if ie, ok = m.InfraEnv(id); ok {
			ps, static = clusters.PullSecret(m, ie.PullSecretRef), StaticNetwork(m, ie)
		}
	})
	if !ok {
		return fmt.Errorf("%w: infra-env %s", hosts.ErrNotFound, id)
	}
	patch, err := Patch(&ie, &ps, p)
	if err != nil {
		return err
	}
	if p.StaticNetworkConfig != nil {
		static = NMStateHosts(*p.StaticNetworkConfig)
	}
	if err := s.checkDiscovery(ie, ps, static); err != nil {
		return err
	}
	if p.StaticNetworkConfig != nil {
		sel := StaticSelector(id)
		patch.StaticNetworkSelector = &sel
	}
	if p.PullSecret != nil {
		ref := clusters.InfraEnvSecretName(id)
		patch.PullSecretRef = &ref
	}
	update := &engine.UpdateInfraEnv{ID: id, Patch: patch}
	if err := engine.Check(s.store, update); err != nil { // before its pull secret is stored
		return fmt.Errorf("update infra-env: %w", err)
	}
	if p.StaticNetworkConfig != nil {
		if err := s.ReplaceStaticNetwork(ctx, id, static); err != nil {
			return err
		}
	}
	if p.PullSecret != nil {
		if _, err := s.store.Apply(ctx, clusters.PutPullSecret(*patch.PullSecretRef, ps)); err != nil {
			return fmt.Errorf("store pull secret: %w", err)
		}
	}
	if _, err := s.store.Apply(ctx, update); err != nil {
		return fmt.Errorf("update infra-env: %w", err)
	}
	s.hosts.Event(ctx, engine.Event{Name: "infra_env_updated", Severity: "info", InfraEnvID: id, ClusterID: ie.ClusterID,
		Message: fmt.Sprintf("Infra env %s was updated", ie.Name)})
	return nil
}

// Patch applies p to ie and *ps (for checking) and returns the
// engine patch.
func Patch(ie *engine.InfraEnv, ps *string, p models.InfraEnvUpdateParams) (engine.InfraEnvPatch, error) {
	var patch engine.InfraEnvPatch
	if p.PullSecret != nil {
		if err := clusters.CheckPullSecret(*p.PullSecret); err != nil {
			return patch, err
		}
		*ps = *p.PullSecret
	}
	if p.ImageType != nil {
		if err := checkImageType(*p.ImageType); err != nil {
			return patch, err
		}
		ie.ImageType, patch.ImageType = *p.ImageType, p.ImageType
	}
	if p.SSHAuthorizedKey != nil {
		ie.SSHAuthorizedKey, patch.SSHAuthorizedKey = *p.SSHAuthorizedKey, p.SSHAuthorizedKey
	}
	if p.KernelArguments != nil {
		kargs, err := KernelArgs(*p.KernelArguments)
		if err != nil {
			return patch, err
		}
		if kargs == nil {
			kargs = []engine.KernelArgument{}
		}
		ie.KernelArguments, patch.KernelArguments = kargs, &kargs
	}
	if p.IgnitionConfigOverride != nil {
		ie.IgnitionOverride, patch.IgnitionOverride = *p.IgnitionConfigOverride, p.IgnitionConfigOverride
	}
	if p.AdditionalNtpSources != nil {
		ntp := splitNTP(*p.AdditionalNtpSources)
		ie.NTPSources, patch.NTPSources = ntp, &ntp
	}
	if p.Proxy != nil {
		px := engine.Proxy{}
		if ie.Proxy != nil {
			px = *ie.Proxy
		}
		applyProxy(&px, p.Proxy)
		ie.Proxy, patch.Proxy = &px, &px
	}
	return patch, nil
}

// Deregister deletes infra-env id, which has no hosts left, with its pull
// secret and the static network configs made for it, and its event.
func (s *Service) Deregister(ctx context.Context, id string) error {
	var n int
	s.store.Read(func(m *engine.Model) {
		for range m.HostsOfInfraEnv(id) {
			n++
		}
	})
	if n > 0 {
		return fmt.Errorf("%w: infra-env %s still has hosts (%d)", hosts.ErrConflict, id, n)
	}
	if _, err := s.store.Apply(ctx, &engine.DeleteInfraEnv{ID: id}); err != nil {
		return fmt.Errorf("delete infra-env: %w", err)
	}
	if _, err := s.store.Apply(ctx, &engine.DeleteSecret{Name: clusters.InfraEnvSecretName(id)}); err != nil && !errors.Is(err, engine.ErrNotFound) {
		return fmt.Errorf("delete pull secret: %w", err)
	}
	if err := s.DeleteStaticNetwork(ctx, id); err != nil {
		return err
	}
	s.hosts.Event(ctx, engine.Event{Name: "infra_env_deregistered", Severity: "info", InfraEnvID: id,
		Message: fmt.Sprintf("Deregistered infra env %s", id)})
	return nil
}
