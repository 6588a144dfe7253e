package hosts

import (
	"fmt"

	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/engine"
)

// DefaultCPUArchitecture is the architecture of a cluster or infra-env
// that names none, as upstream.
const DefaultCPUArchitecture = "x86_64"

// InfraEnv returns infra-env id, or ErrNotFound.
func (s *Service) InfraEnv(id string) (engine.InfraEnv, error) {
	var (
		ie engine.InfraEnv
		ok bool
	)
	s.store.Read(func(m *engine.Model) { ie, ok = m.InfraEnv(id) })
	if !ok {
		return ie, fmt.Errorf("%w: infra-env %s", ErrNotFound, id)
	}
	return ie, nil
}

// CheckClusterArch refuses a cluster of another CPU architecture.
func (s *Service) CheckClusterArch(clusterID, arch string) error {
	var (
		c    engine.Cluster
		ok   bool
		carc string
	)
	s.store.Read(func(m *engine.Model) {
		if c, ok = m.Cluster(clusterID); ok {
			carc = ClusterArch(m, c)
		}
	})
	if !ok {
		return fmt.Errorf("%w: cluster %s", ErrNotFound, clusterID)
	}
	if NormArch(arch) != NormArch(carc) {
		return Invalid("cpu architecture %s does not match cluster %s's %s", arch, clusterID, carc)
	}
	return nil
}

// ClusterArch is a cluster's CPU architecture: its image set's, else
// x86_64 (the model keeps no other).
func ClusterArch(m *engine.Model, c engine.Cluster) string {
	if is, ok := m.ImageSet(c.ImageSetRef); ok && is.CPUArchitecture != "" {
		return is.CPUArchitecture
	}
	return DefaultCPUArchitecture
}

// NormArch maps upstream's aliases to one name.
func NormArch(arch string) string {
	switch arch {
	case "":
		return DefaultCPUArchitecture
	case "aarch64":
		return "arm64"
	}
	return arch
}

// CheckOverride accepts "" (no override) or a valid Ignition config.
func CheckOverride(s string) error {
	if s == "" {
		return nil
	}
	if len(s) > MaxOverride {
		return Invalid("ignition_config_overrides is longer than %d bytes", MaxOverride)
	}
	if err := installer.ValidateOverride(s); err != nil {
		return Invalid("ignition_config_overrides: %v", err)
	}
	return nil
}

// MaxOverride bounds a host's Ignition override.
const MaxOverride = 256 << 10
