package config

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/rackboot/rackboot/engine/validation"
)

// Bounds of the engine's durations.
const (
	minMonitorInterval = time.Second
	minInstallTimeout  = time.Minute
	minDisconnect      = 10 * time.Second
	maxRefLen          = 253
)

// engine checks [engine]; it runs after profiles, whose names
// default_profile must match.
func (c *checker) engine(f fileEngine) {
	e := &c.cfg.Engine
	if f.DefaultInfraEnv != "" && c.ref("engine.default_infra_env", f.DefaultInfraEnv) {
		e.DefaultInfraEnv = f.DefaultInfraEnv
	}
	if f.DefaultProfile != "" {
		c.defaultProfile(f.DefaultProfile)
	}
	e.MonitorInterval = c.duration("engine.monitor_interval", c.str("engine.monitor_interval", f.MonitorInterval, "30s"), minMonitorInterval)
	disconnect := c.duration("engine.disconnect_after", c.str("engine.disconnect_after", f.DisconnectAfter, "3m"), minDisconnect)
	e.InstallTimeout = c.duration("engine.install_timeout", c.str("engine.install_timeout", f.InstallTimeout, "20m"), minInstallTimeout)
	e.Thresholds = c.thresholds(f.Thresholds)
	if disconnect > 0 {
		e.Thresholds.DisconnectAfter = disconnect
	}
}

func (c *checker) api(f fileAPI) {
	c.cfg.API.AdminRemote = f.AdminRemote
}

// ref checks an infra-env name or id as the API accepts names: printable,
// no space at either end, not too long.
func (c *checker) ref(path, s string) bool {
	ok := len(s) <= maxRefLen && strings.TrimSpace(s) == s
	for _, r := range s {
		if !unicode.IsPrint(r) {
			ok = false
		}
	}
	if !ok {
		c.errAt(path, "%s %q is not an infra-env name or id (printable characters, no space at either end, at most %d bytes)", display(path), s, maxRefLen)
	}
	return ok
}

func (c *checker) defaultProfile(name string) {
	var names []string
	for _, p := range c.cfg.Profiles {
		if p.Name == name {
			c.cfg.Engine.DefaultProfile = name
			return
		}
		names = append(names, p.Name)
	}
	msg := fmt.Sprintf("engine.default_profile %q names no [[profile]]", name)
	if guess := closest(name, names); guess != "" {
		msg += fmt.Sprintf("; did you mean %q?", guess)
	} else if len(names) > 0 {
		msg += "; the profiles are " + quoteList(names)
	}
	c.errAt("engine.default_profile", "%s", msg)
}

// duration parses a duration at path of at least least; 0 on error.
func (c *checker) duration(path, s string, least time.Duration) time.Duration {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		c.errAt(path, "%s %q is not a duration like \"30s\" or \"3m\"", display(path), s)
	case d < least:
		c.errAt(path, "%s %s is shorter than %s", display(path), d, least)
	default:
		return d
	}
	return 0
}

// thresholds applies [engine.thresholds] to upstream's minimums. Changing a
// minimum needs a profile name, so that small machines never pass by
// accident.
func (c *checker) thresholds(f fileThresholds) validation.Thresholds {
	def := validation.DefaultThresholds()
	o, ok := c.thresholdOverride("engine.thresholds", f)
	if !ok {
		return def
	}
	t, _ := def.Override(o) // thresholdOverride checked it
	return t
}

// thresholdOverride checks a thresholds table at path and returns it as an
// override of upstream's minimums; false (reported) when a value is
// negative or a minimum changes without a profile name.
func (c *checker) thresholdOverride(path string, f fileThresholds) (validation.Thresholds, bool) {
	o := validation.Thresholds{Profile: f.Profile, MemoryToleranceMiB: int64(f.MemoryToleranceMiB),
		DiskSpeedThresholdMs: int64(f.DiskSpeedMs)}
	ok := c.nonNegative(path+".memory_tolerance_mib", f.MemoryToleranceMiB)
	ok = c.nonNegative(path+".installation_disk_speed_threshold_ms", f.DiskSpeedMs) && ok
	for _, r := range []struct {
		role string
		in   fileMinimums
		out  *validation.Requirements
	}{{"master", f.Master, &o.Master}, {"worker", f.Worker, &o.Worker}, {"single_node", f.SingleNode, &o.SingleNode}} {
		base := path + "." + r.role
		ok = c.nonNegative(base+".cpu_cores", r.in.CPUCores) && ok
		ok = c.nonNegative(base+".memory_mib", r.in.MemoryMiB) && ok
		ok = c.nonNegative(base+".disk_gb", r.in.DiskGB) && ok
		*r.out = validation.Requirements{CPUCores: int64(r.in.CPUCores), MemoryMiB: int64(r.in.MemoryMiB), DiskGB: int64(r.in.DiskGB)}
	}
	if !ok {
		return o, false
	}
	if _, err := validation.DefaultThresholds().Override(o); err != nil {
		c.errAt(path, "%s changes hardware minimums without naming its profile: "+
			"add profile = \"<name>\" (for example \"testbed\") so that small machines never pass by accident", display(path))
		return o, false
	}
	return o, true
}

func (c *checker) nonNegative(path string, n int) bool {
	if n < 0 {
		c.errAt(path, "%s must not be negative, not %d", display(path), n)
		return false
	}
	return true
}
