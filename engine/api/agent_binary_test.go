package api

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// The real rackboot-agent binary, configured with the agent.conf of the
// infra-env's discovery.ign, registers with the API, runs the inventory
// step on this machine and posts it.
func TestRealAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "rackboot-agent")
	build := exec.Command("go", "build", "-o", bin, "github.com/rackboot/rackboot/cmd/rackboot-agent")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build agent: %v\n%s", err, out)
	}
	e := newMemEnv(t)
	ie := e.createInfraEnv("")
	ac := e.agentConfig(ie.ID)
	conf, err := json.Marshal(ac)
	if err != nil {
		t.Fatal(err)
	}
	confPath := filepath.Join(dir, "agent.conf")
	if err := os.WriteFile(confPath, conf, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &syncBuffer{}
	cmd := exec.CommandContext(ctx, bin, "--config", confPath, "--host-id", testHostID2, "--log-level", "DEBUG")
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })

	deadline := time.Now().Add(60 * time.Second)
	var h engine.Host
	for {
		e.store.Read(func(m *engine.Model) { h, _ = m.Host(testHostID2) })
		if len(h.Inventory) > 0 && !strings.HasPrefix(h.Status, models.HostStatusDiscovering) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent did not report an inventory (host %+v)\nagent log:\n%s", h.Status, stderr.String())
		}
		<-time.After(50 * time.Millisecond)
	}
	var inv models.Inventory
	if err := json.Unmarshal(h.Inventory, &inv); err != nil || inv.CPU == nil || inv.CPU.Count < 1 || len(inv.Interfaces) == 0 {
		t.Fatalf("inventory from the real agent: %v %s", err, h.Inventory)
	}
	if name, err := os.Hostname(); err == nil && inv.Hostname != name {
		t.Errorf("inventory hostname %q, this machine is %q", inv.Hostname, name)
	}
	if h.InfraEnvID != ie.ID || h.AgentVersion == "" || h.Status != models.HostStatusKnownUnbound && h.Status != models.HostStatusInsufficientUnbound {
		t.Errorf("host %s of %s: status %q agent %q", h.ID, h.InfraEnvID, h.Status, h.AgentVersion)
	}
	cancel()
	_ = cmd.Wait()
	if strings.Contains(stderr.String(), ac.Token) {
		t.Errorf("the agent logged its token")
	}
}
