package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/boot/discovery"
)

// The sink's samples survive the Prometheus text round trip and become
// per-phase deltas: entries per write, slow writes, commit times.
func TestSinkToPhaseStats(t *testing.T) {
	s := newRaftSink()
	var before strings.Builder
	s.writeTo(&before)
	for _, n := range []float32{64, 64, 2} { // three writes, 130 entries
		s.AddSample([]string{"raft", "boltdb", "logsPerBatch"}, n)
	}
	for _, ms := range []float32{1, 12, 60} {
		s.AddSample([]string{"raft", "boltdb", "storeLogs"}, ms)
	}
	s.AddSample([]string{"raft", "leader", "dispatchLog"}, 1)
	s.SetGauge([]string{"raft", "leader", "dispatchNumLogs"}, 130)
	s.AddSample([]string{"raft", "commitTime"}, 70)
	s.AddSample([]string{"raft", "other"}, 1e9) // not kept
	var after strings.Builder
	s.writeTo(&after)
	raft := "rackboot_raft_applied_index %d\nrackboot_raft_last_index %d\nrackboot_raft_commands_applied_total %d\nrackboot_x{a=\"b\"} 7\n"
	ma, err := parseMetrics(strings.NewReader(strings.ReplaceAll(raft, "%d", "10") + before.String()))
	if err != nil {
		t.Fatal(err)
	}
	mb, err := parseMetrics(strings.NewReader(strings.ReplaceAll(raft, "%d", "140") + after.String()))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(0, 0)
	p := diffSnaps("x", snap{at: t0, m: ma}, snap{at: t0.Add(2 * time.Second), m: mb}, 13, "host")
	if !p.HasRaft || !p.HasBatching {
		t.Fatalf("raft %t batching %t", p.HasRaft, p.HasBatching)
	}
	if p.Applied != 130 || p.Commands != 130 || p.Writes != 3 || p.WrittenEntries != 130 || p.WriteMs != 73 ||
		p.SlowWrites10 != 2 || p.SlowWrites50 != 1 || p.Dispatches != 1 || p.Dispatched != 130 ||
		p.Commits != 1 || p.SlowCommits50 != 1 {
		t.Errorf("%+v", p)
	}
	if _, labelled := mb["rackboot_x"]; labelled {
		t.Error("a labelled sample was kept")
	}
	if p := diffSnaps("x", snap{m: map[string]float64{}}, snap{m: mb}, 1, "poll"); p.HasRaft || p.HasBatching {
		t.Error("counters missing before the phase were taken as zero")
	}
}

// The agent configuration is found in a discovery Ignition as
// boot/discovery builds it.
func TestAgentConfigFromDiscoveryIgnition(t *testing.T) {
	want := discovery.AgentConfig{ServiceURL: "http://127.0.0.1:8080",
		InfraEnvID: "0b7e2a7c-1d0f-4a43-9a3f-3f1ea8a44a01", Token: "header.payload.signature"}
	ign, err := discovery.Build(discovery.Input{ServiceURL: want.ServiceURL, InfraEnvID: want.InfraEnvID,
		AgentToken: want.Token, PullSecret: benchPullSecret})
	if err != nil {
		t.Fatal(err)
	}
	got, err := agentConfig(ign)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if _, err := agentConfig([]byte(`{"ignition":{"version":"3.5.0"}}`)); !errors.Is(err, ErrSetup) {
		t.Errorf("no agent.conf: %v", err)
	}
	if _, err := agentConfig([]byte(`not ignition`)); !errors.Is(err, ErrSetup) {
		t.Errorf("garbage: %v", err)
	}
}
