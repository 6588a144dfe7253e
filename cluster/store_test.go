package cluster

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/rackboot/rackboot/dhcp"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

const (
	ieID = "11111111-1111-4111-8111-111111111111"
	clID = "33333333-3333-4333-8333-333333333333"
)

func testConfig(dir string) Config {
	return Config{DataDir: dir, HeartbeatTimeout: 50 * time.Millisecond}
}

func open(t *testing.T, cfg Config) *Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func dump(s *Store) []byte {
	var b []byte
	s.Read(func(m *engine.Model) { b = enginetest.Dump(m.Clone()) })
	return b
}

func must(t *testing.T, s engine.Store, cmd engine.Command) any {
	t.Helper()
	v, err := s.Apply(context.Background(), cmd)
	if err != nil {
		t.Fatalf("%T: %v", cmd, err)
	}
	return v
}

func uuid(i int) string {
	return "aaaaaaaa-0000-4000-8000-" + hex12(i)
}

func hex12(i int) string {
	const digits = "0123456789abcdef"
	b := []byte("000000000000")
	for j := 11; j >= 0 && i > 0; j-- {
		b[j] = digits[i%16]
		i /= 16
	}
	return string(b)
}

// write applies n commands of several kinds.
func write(t *testing.T, s *Store, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		must(t, s, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: uuid(i), Name: "ie"}})
		must(t, s, &engine.LeaseCommit{Leases: []engine.LeaseRecord{{
			IP: netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), MAC: net.HardwareAddr{2, 0, 0, 0, byte(i >> 8), byte(i)}.String(),
			Expires: time.Unix(1e9, 0).UTC(),
		}}})
		must(t, s, &engine.AppendEvent{Event: engine.Event{Severity: "info", Message: "created", InfraEnvID: uuid(i)}})
	}
}

// The log replays to the same model after a restart, with and without a
// snapshot in between.
func TestReplayAfterRestart(t *testing.T) {
	dir := t.TempDir()
	s := open(t, testConfig(dir))
	must(t, s, &engine.CreateCluster{Cluster: engine.Cluster{ID: clID, Name: "c"}})
	write(t, s, 0, 50)
	before := dump(s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open(t, testConfig(dir))
	if after := dump(s); !bytes.Equal(before, after) {
		t.Fatalf("log replayed to a different model:\n%s\n---\n%s", before, after)
	}
	if err := s.Snapshot(); err != nil {
		t.Fatal(err)
	}
	write(t, s, 50, 20)
	before = dump(s)
	s.Close()

	s = open(t, testConfig(dir))
	defer s.Close()
	if after := dump(s); !bytes.Equal(before, after) {
		t.Fatalf("snapshot + log replayed to a different model:\n%s\n---\n%s", before, after)
	}
	if _, ok := engine.NewLeases(s).ByIP(netip.AddrFrom4([4]byte{10, 0, 0, 69})); !ok {
		t.Error("lease written after the snapshot is missing")
	}
}

// Domain errors come back through raft with their sentinel.
func TestApplyErrors(t *testing.T) {
	s := open(t, testConfig(t.TempDir()))
	defer s.Close()
	_, err := s.Apply(context.Background(), &engine.DeleteHost{ID: ieID})
	if !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
	v := must(t, s, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "x"}})
	if ie, ok := v.(engine.InfraEnv); !ok || ie.ID != ieID || ie.Revision == 0 {
		t.Errorf("result = %#v", v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Apply(ctx, &engine.DeleteInfraEnv{ID: ieID}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled apply: %v", err)
	}
}

// A second node on the same data directory fails instead of sharing it.
func TestDataDirLocked(t *testing.T) {
	dir := t.TempDir()
	s := open(t, testConfig(dir))
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if s2, err := Open(ctx, testConfig(dir)); !errors.Is(err, ErrOpen) {
		if s2 != nil {
			s2.Close()
		}
		t.Fatalf("second Open: %v", err)
	}
}

func TestLeadership(t *testing.T) {
	s := open(t, testConfig(t.TempDir()))
	if !s.Leader() {
		t.Error("one-voter node does not lead after Open")
	}
	ch := s.LeaderChanges(context.Background())
	if v := <-ch; !v {
		t.Error("first leadership value is false")
	}
	s.Close()
	for v := range ch {
		if v {
			t.Error("leader after Close")
		}
	}
}

// Concurrent lease commits travel in far fewer log entries than leases.
func TestLeaseCommitsBatched(t *testing.T) {
	s := open(t, testConfig(t.TempDir()))
	defer s.Close()
	l := engine.NewLeases(s)
	before := s.Stats()
	const n = 500
	start := make(chan struct{})
	errs := make(chan error, n)
	for i := range n {
		go func() {
			<-start
			errs <- l.Commit(context.Background(), dhcp.Lease{
				IP: netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}), MAC: net.HardwareAddr{2, 1, 0, 0, byte(i >> 8), byte(i)},
				Expires: time.Now().Add(time.Hour),
			})
		}()
	}
	close(start)
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	after := s.Stats()
	commands := after.Commands - before.Commands
	entries := after.LastIndex - before.LastIndex
	t.Logf("%d lease commits: %d commands, %d log entries", n, commands, entries)
	if commands > n/10 || entries > n/10 {
		t.Errorf("%d concurrent commits took %d commands (%d entries), want at most %d", n, commands, entries, n/10)
	}
	var count int
	s.Read(func(m *engine.Model) { count = m.LeaseCount() })
	if count != n {
		t.Errorf("%d leases stored, want %d", count, n)
	}
}
