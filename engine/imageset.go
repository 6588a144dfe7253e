package engine

import "fmt"

// ImageSetSourceConfig marks an image set that rackbootd's configuration
// file created; only those are removed when they leave the file.
const ImageSetSourceConfig = "config"

// Minimums are the hardware minimums of one role; zero keeps the default.
type Minimums struct {
	CPUCores  int64 `json:"cpu_cores,omitempty"`
	MemoryMiB int64 `json:"memory_mib,omitempty"`
	DiskGB    int64 `json:"disk_gb,omitempty"`
}

// Thresholds override the validations' hardware minimums for the hosts of
// an image set: every non-zero field replaces upstream's value. Lowering a
// minimum needs a Profile name, so that small machines never pass by
// accident.
type Thresholds struct {
	Profile            string   `json:"profile,omitempty"`
	Master             Minimums `json:"master,omitzero"`
	Worker             Minimums `json:"worker,omitzero"`
	SingleNode         Minimums `json:"single_node,omitzero"`
	MemoryToleranceMiB int64    `json:"memory_tolerance_mib,omitempty"`
	// DiskSpeedThresholdMs overrides upstream's 10 ms limit of the
	// installation disk's fdatasync (0: upstream's).
	DiskSpeedThresholdMs int64 `json:"installation_disk_speed_threshold_ms,omitempty"`
}

// check reports a negative value, or minimums changed without a profile.
func (t Thresholds) check() error {
	set := false
	for _, m := range []Minimums{t.Master, t.Worker, t.SingleNode} {
		if m.CPUCores < 0 || m.MemoryMiB < 0 || m.DiskGB < 0 {
			return fmt.Errorf("negative minimum in %+v", m)
		}
		set = set || m != Minimums{}
	}
	if t.MemoryToleranceMiB < 0 || t.DiskSpeedThresholdMs < 0 {
		return fmt.Errorf("negative memory tolerance %d or disk speed threshold %d", t.MemoryToleranceMiB, t.DiskSpeedThresholdMs)
	}
	if (set || t.MemoryToleranceMiB > 0 || t.DiskSpeedThresholdMs > 0) && t.Profile == "" {
		return fmt.Errorf("thresholds change hardware minimums without naming their profile")
	}
	return nil
}

// BootImageSet is the image set whose profile the hosts of ie boot: its
// cluster's image set when that names a profile, else the first image set
// (by name) of the infra-env's CPU architecture that names one.
func (m *Model) BootImageSet(ie InfraEnv) (ImageSet, bool) {
	if c, ok := m.Cluster(ie.ClusterID); ok {
		if is, ok := m.ImageSet(c.ImageSetRef); ok && is.Profile != "" {
			return is, true
		}
	}
	return m.archImageSet(ie.CPUArchitecture)
}

// ClusterImageSet is the image set of a cluster: the one it references when
// that names a profile, else the first image set (by name) of its
// architecture (x86_64 without a reference) that names one.
func (m *Model) ClusterImageSet(c Cluster) (ImageSet, bool) {
	is, ok := m.ImageSet(c.ImageSetRef)
	if ok && is.Profile != "" {
		return is, true
	}
	if ok && is.CPUArchitecture != "" {
		return m.archImageSet(is.CPUArchitecture)
	}
	return m.archImageSet("")
}

func (m *Model) archImageSet(arch string) (ImageSet, bool) {
	arch = NormArch(arch)
	for is := range m.ImageSets() {
		if is.Profile != "" && NormArch(is.CPUArchitecture) == arch {
			return is, true
		}
	}
	return ImageSet{}, false
}

// NormArch folds upstream's CPU architecture aliases; empty is x86_64.
func NormArch(a string) string {
	switch a {
	case "", "amd64":
		return "x86_64"
	case "aarch64":
		return "arm64"
	}
	return a
}
