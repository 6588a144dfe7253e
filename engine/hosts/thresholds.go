package hosts

import (
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/validation"
)

// ClusterThresholds are the hardware minimums of a cluster's validations:
// its image set's thresholds (engine.Model.ClusterImageSet) when it has
// some, else Options.Thresholds (the daemon's configured minimums, or
// upstream's).
func (s *Service) ClusterThresholds(m *engine.Model, c engine.Cluster) validation.Thresholds {
	base := s.thresholds(m, c.ID)
	if is, ok := m.ClusterImageSet(c); ok {
		return imageSetThresholds(is, base)
	}
	return base
}

// HostThresholds are the minimums a host is validated against: its
// cluster's when bound, else those of the image set its infra-env boots
// (engine.Model.BootImageSet, the boot selector's rule), else
// Options.Thresholds.
func (s *Service) HostThresholds(m *engine.Model, h engine.Host) validation.Thresholds {
	if c, ok := m.Cluster(h.ClusterID); ok {
		return s.ClusterThresholds(m, c)
	}
	base := s.thresholds(m, h.ClusterID)
	if ie, ok := m.InfraEnv(h.InfraEnvID); ok {
		if is, ok := m.BootImageSet(ie); ok {
			return imageSetThresholds(is, base)
		}
	}
	return base
}

// imageSetThresholds applies an image set's overrides to upstream's
// minimums; the disconnection timeout stays base's, and so does the disk
// speed limit unless the image set sets one. Without overrides it is base.
func imageSetThresholds(is engine.ImageSet, base validation.Thresholds) validation.Thresholds {
	if is.Thresholds == nil {
		return base
	}
	o := is.Thresholds
	t, err := validation.DefaultThresholds().Override(validation.Thresholds{
		Profile: o.Profile, Master: requirements(o.Master), Worker: requirements(o.Worker),
		SingleNode: requirements(o.SingleNode), MemoryToleranceMiB: o.MemoryToleranceMiB,
		DiskSpeedThresholdMs: o.DiskSpeedThresholdMs,
	})
	if err != nil { // PutImageSet refuses such thresholds; keep the safe side
		return validation.DefaultThresholds()
	}
	t.DisconnectAfter = base.DisconnectAfter
	if o.DiskSpeedThresholdMs == 0 {
		t.DiskSpeedThresholdMs = base.DiskSpeedThresholdMs
	}
	return t
}

func requirements(m engine.Minimums) validation.Requirements {
	return validation.Requirements{CPUCores: m.CPUCores, MemoryMiB: m.MemoryMiB, DiskGB: m.DiskGB}
}
