package validation

import (
	"fmt"
	"time"

	"github.com/rackboot/rackboot/engine/models"
)

// Requirements are the hardware minimums of one role.
type Requirements struct {
	CPUCores  int64 `json:"cpu_cores" toml:"cpu_cores"`
	MemoryMiB int64 `json:"ram_mib" toml:"ram_mib"`
	// DiskGB is the minimum installation disk size in decimal gigabytes.
	DiskGB int64 `json:"disk_size_gb" toml:"disk_size_gb"`
}

// Thresholds are the hardware minimums per role and the disconnection
// timeout. DefaultThresholds returns upstream's; an image set may override
// them through Override, naming the profile that does so.
type Thresholds struct {
	// Profile names an explicit override ("" for upstream's defaults).
	Profile    string       `json:"profile,omitempty" toml:"profile"`
	Master     Requirements `json:"master" toml:"master"`
	Worker     Requirements `json:"worker" toml:"worker"`
	SingleNode Requirements `json:"single_node" toml:"single_node"`
	// MemoryToleranceMiB is how much less RAM than required still passes
	// (upstream: 100 MiB; VMs often report a little less).
	MemoryToleranceMiB int64 `json:"memory_tolerance_mib" toml:"memory_tolerance_mib"`
	// DisconnectAfter is how long a host may stay silent before it is
	// disconnected (upstream: 3 minutes).
	DisconnectAfter time.Duration `json:"disconnect_after" toml:"disconnect_after"`
	// DiskSpeedThresholdMs is the longest 99th percentile fdatasync of the
	// installation disk the installation-disk-speed-check accepts
	// (upstream's installation_disk_speed_threshold_ms: 10).
	DiskSpeedThresholdMs int64 `json:"installation_disk_speed_threshold_ms,omitempty" toml:"installation_disk_speed_threshold_ms"`
}

// DefaultThresholds returns upstream's minimums: control plane 4 cores and
// 16 GiB, worker 2 cores and 8 GiB, single-node 8 cores and 16 GiB, an
// installation disk of at least 120 GB, disconnection after 3 minutes.
func DefaultThresholds() Thresholds {
	return Thresholds{
		Master:               Requirements{CPUCores: 4, MemoryMiB: 16 * 1024, DiskGB: 120},
		Worker:               Requirements{CPUCores: 2, MemoryMiB: 8 * 1024, DiskGB: 120},
		SingleNode:           Requirements{CPUCores: 8, MemoryMiB: 16 * 1024, DiskGB: 120},
		MemoryToleranceMiB:   100,
		DisconnectAfter:      3 * time.Minute,
		DiskSpeedThresholdMs: DiskSpeedThresholdMs,
	}
}

// Override returns t with every non-zero field of o replacing t's. An
// override that changes a minimum must name its profile, so that small
// machines never pass by accident.
func (t Thresholds) Override(o Thresholds) (Thresholds, error) {
	out := t
	changed := overrideReq(&out.Master, o.Master)
	changed = overrideReq(&out.Worker, o.Worker) || changed
	changed = overrideReq(&out.SingleNode, o.SingleNode) || changed
	if o.MemoryToleranceMiB > 0 {
		out.MemoryToleranceMiB, changed = o.MemoryToleranceMiB, true
	}
	if o.DiskSpeedThresholdMs > 0 {
		out.DiskSpeedThresholdMs, changed = o.DiskSpeedThresholdMs, true
	}
	if o.DisconnectAfter > 0 {
		out.DisconnectAfter = o.DisconnectAfter
	}
	if changed && o.Profile == "" {
		return t, fmt.Errorf("%w: an override of hardware minimums must name its profile", ErrBadThresholds)
	}
	if o.Profile != "" {
		out.Profile = o.Profile
	}
	return out, out.Validate()
}

func overrideReq(dst *Requirements, o Requirements) bool {
	changed := false
	if o.CPUCores > 0 {
		dst.CPUCores, changed = o.CPUCores, true
	}
	if o.MemoryMiB > 0 {
		dst.MemoryMiB, changed = o.MemoryMiB, true
	}
	if o.DiskGB > 0 {
		dst.DiskGB, changed = o.DiskGB, true
	}
	return changed
}

// Validate reports a minimum that is zero or negative.
func (t Thresholds) Validate() error {
	for name, r := range map[string]Requirements{"master": t.Master, "worker": t.Worker, "single_node": t.SingleNode} {
		if r.CPUCores <= 0 || r.MemoryMiB <= 0 || r.DiskGB <= 0 {
			return fmt.Errorf("%w: %s minimums must be positive (cores %d, ram %d MiB, disk %d GB)",
				ErrBadThresholds, name, r.CPUCores, r.MemoryMiB, r.DiskGB)
		}
	}
	if t.MemoryToleranceMiB < 0 || t.DisconnectAfter < 0 || t.DiskSpeedThresholdMs < 0 {
		return fmt.Errorf("%w: negative tolerance or timeout", ErrBadThresholds)
	}
	return nil
}

// ForRole returns the minimums of a role: a master (or the bootstrap
// master) of a single-node cluster gets SingleNode, a master Master,
// anything else Worker (as
// upstream, auto-assign is held to the worker minimums until a role is
// suggested).
func (t Thresholds) ForRole(role models.HostRole, singleNode bool) Requirements {
	master := role == models.HostRoleMaster || role == models.HostRoleBootstrap
	switch {
	case master && singleNode:
		return t.SingleNode
	case master:
		return t.Master
	}
	return t.Worker
}

// anyRole is the least a host needs for some role (upstream's "minimum
// required ... for any role").
func (t Thresholds) anyRole(singleNode bool) Requirements {
	m := t.ForRole(models.HostRoleMaster, singleNode)
	w := t.Worker
	return Requirements{
		CPUCores:  min(m.CPUCores, w.CPUCores),
		MemoryMiB: min(m.MemoryMiB, w.MemoryMiB),
		DiskGB:    min(m.DiskGB, w.DiskGB),
	}
}

func (t Thresholds) disconnectAfter() time.Duration {
	if t.DisconnectAfter <= 0 {
		return 3 * time.Minute
	}
	return t.DisconnectAfter
}
