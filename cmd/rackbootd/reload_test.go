package main

import (
	"slices"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
)

// TestRestartOnlyEngineKeys: the engine settings that the running API and
// monitor were built from need a restart; the default infra-env and
// profile do not.
func TestRestartOnlyEngineKeys(t *testing.T) {
	base := func() *config.Config {
		c := &config.Config{}
		c.Engine.MonitorInterval = 30 * time.Second
		c.Engine.Thresholds.DisconnectAfter = 3 * time.Minute
		return c
	}
	for key, change := range map[string]func(c *config.Config){
		"engine.thresholds":       func(c *config.Config) { c.Engine.Thresholds.Master.CPUCores = 2 },
		"engine.disconnect_after": func(c *config.Config) { c.Engine.Thresholds.DisconnectAfter = time.Minute },
		"engine.monitor_interval": func(c *config.Config) { c.Engine.MonitorInterval = time.Second },
		"api.admin_remote":        func(c *config.Config) { c.API.AdminRemote = true },
		"":                        func(c *config.Config) { c.Engine.DefaultInfraEnv, c.Engine.DefaultProfile = "rack", "discovery" },
	} {
		b := base()
		change(b)
		got := restartOnly(base(), b)
		if key == "" && len(got) != 0 || key != "" && !slices.Equal(got, []string{key}) {
			t.Errorf("changing %q: restartOnly = %q", key, got)
		}
	}
}
