package api

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/steps"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// sntpServer answers SNTP requests on 127.77.0.123 port 123 (infra-envs
// take NTP sources without ports) with this machine's clock (stratum 2)
// until the test ends; it returns the address, or "" when the port cannot
// be bound (not root).
func sntpServer(t *testing.T) string {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.77.0.123:123")
	if err != nil {
		t.Logf("no SNTP server, the agent checks only the appliance's clock: %v", err)
		return ""
	}
	t.Cleanup(func() { conn.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := conn.ReadFrom(buf)
			if err != nil {
				return
			}
			if n < 48 {
				continue
			}
			rx := time.Now()
			out := make([]byte, 48)
			out[0], out[1] = 0x24, 2     // version 4, mode 4 (server); stratum 2
			copy(out[24:32], buf[40:48]) // originate: the client's transmit
			binary.BigEndian.PutUint64(out[32:40], steps.NTPTimestamp(rx))
			binary.BigEndian.PutUint64(out[40:48], steps.NTPTimestamp(time.Now()))
			_, _ = conn.WriteTo(out, from)
		}
	}()
	return "127.77.0.123"
}

// The real rackboot-agent binary, configured with the agent.conf of the
// infra-env's discovery.ign, registers with the API, runs the inventory
// step on this machine and posts it, then the ntp-synchronizer step
// against the infra-env's NTP source (an SNTP server on loopback) and the
// appliance's clock; the host reaches known-unbound with its clock and
// NTP sources recorded.
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
	// No NTP source off this machine: the SNTP server on loopback, or none.
	ntp := sntpServer(t)
	e.must(adminCred(), 201, "PATCH", "/infra-envs/"+ie.ID, map[string]any{"additional_ntp_sources": ntp})
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
		// This machine's hardware decides between the two.
		if len(h.Inventory) > 0 && len(h.NTPSources) > 0 &&
			(h.Status == models.HostStatusKnownUnbound || h.Status == models.HostStatusInsufficientUnbound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent did not report an inventory and NTP sources (host %s: %s; ntp %s)\nagent log:\n%s",
				h.Status, h.StatusInfo, h.NTPSources, stderr.String())
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
	if h.InfraEnvID != ie.ID || h.AgentVersion == "" {
		t.Errorf("host %s of %s: agent %q", h.ID, h.InfraEnvID, h.AgentVersion)
	}
	var sync models.NtpSynchronizationResponse
	if err := json.Unmarshal(h.NTPSources, &sync); err != nil || len(sync.NtpSources) == 0 {
		t.Fatalf("ntp sources %s: %v", h.NTPSources, err)
	}
	// The appliance's clock, as the agent sees it in HTTP Date headers,
	// comes last.
	if last := sync.NtpSources[len(sync.NtpSources)-1]; !strings.HasPrefix(e.srv.URL, "http://"+last.SourceName) {
		t.Errorf("last ntp source %+v, want the appliance %s", last, e.srv.URL)
	}
	if ntp != "" && (len(sync.NtpSources) != 2 ||
		*sync.NtpSources[0] != (models.NtpSource{SourceName: ntp, SourceState: models.SourceStateSynced})) {
		t.Errorf("ntp sources %s, want %s synced first", h.NTPSources, ntp)
	}
	if skew := time.Since(time.Unix(h.HostTime, 0)); skew < -time.Minute || skew > time.Minute {
		t.Errorf("host time %d is %s off", h.HostTime, skew)
	}
	cancel()
	_ = cmd.Wait()
	if strings.Contains(stderr.String(), ac.Token) {
		t.Errorf("the agent logged its token")
	}
}
