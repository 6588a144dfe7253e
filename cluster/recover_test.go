package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
)

// A rack of three loses two members for good. Its survivor, recovered as
// a one-voter rack (offline with Recover, or with a peers.json at start
// as Consul documents), holds the whole state, accepts writes, and a new
// member joins it and replicates everything.
func TestRecoverSurvivor(t *testing.T) {
	for _, way := range []string{"Recover", "peers.json"} {
		t.Run(way, func(t *testing.T) { testRecoverSurvivor(t, way) })
	}
}

func testRecoverSurvivor(t *testing.T, way string) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	ld := r.leader()
	for i := 1; i <= 20; i++ {
		writeIE(t, ld.st, i)
	}
	want := r.converge()
	survivor := r.followers(ld)[0]
	for _, nd := range r.nodes {
		if nd != survivor {
			r.kill(nd)
		}
	}
	r.stop(survivor)

	cfg := r.config(survivor)
	switch way {
	case "Recover":
		if err := Recover(cfg); err != nil {
			t.Fatal(err)
		}
	case "peers.json":
		peers, _ := json.Marshal([]map[string]any{{"id": survivor.id, "address": survivor.addr, "non_voter": false}})
		if err := os.WriteFile(filepath.Join(survivor.dir, "raft", PeersFile), peers, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, err := openCtx(cfg, 60*time.Second)
	if err != nil {
		t.Fatalf("the recovered survivor does not start: %v\n%s", err, survivor.log.String())
	}
	survivor.st = st
	if _, err := os.Stat(filepath.Join(survivor.dir, "raft", PeersFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("peers.json left behind after recovery: %v", err)
	}
	if got := dump(st); string(got) != string(want) {
		t.Errorf("the recovered state differs:\n%s\nwant\n%s", got, want)
	}
	assertMembers(t, st, survivor.id)
	writeIE(t, st, 21)

	n4 := r.add("n4")
	cfg4 := r.config(n4)
	cfg4.Bootstrap, cfg4.Join = nil, survivor.addr
	if n4.st, err = openCtx(cfg4, 60*time.Second); err != nil {
		t.Fatalf("n4 does not join the recovered rack: %v", err)
	}
	r.converge()
	for i := 1; i <= 21; i++ {
		if !hasIE(n4.st, i) {
			t.Errorf("infra-env %d not replicated to the new member", i)
		}
	}
	assertMembers(t, st, survivor.id, "n4")
	writeIE(t, n4.st, 22)
	r.converge()
}

// assertMembers checks that st's cluster has exactly the voters ids.
func assertMembers(t *testing.T, st *Store, ids ...string) {
	t.Helper()
	status, err := st.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, m := range status.Members {
		got[m.ID] = true
	}
	for _, id := range ids {
		if !got[id] {
			t.Errorf("members %v lack %s", got, id)
		}
	}
	if len(got) != len(ids) {
		t.Errorf("members %v, want %v", got, ids)
	}
}

// Recover refuses a data directory without raft state: there is nothing
// to recover, and it writes nothing.
func TestRecoverEmpty(t *testing.T) {
	dir := t.TempDir()
	err := Recover(Config{DataDir: dir})
	if !errors.Is(err, ErrRestore) {
		t.Fatalf("Recover of an empty data_dir: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Recover wrote into an empty data_dir: %v", entries)
	}
}

// A peers.json that does not parse stops the start with its path in the
// error, and stays for the operator to fix.
func TestBadPeersFile(t *testing.T) {
	dir := t.TempDir()
	open(t, testConfig(dir)).Close()
	path := filepath.Join(dir, "raft", PeersFile)
	if err := os.WriteFile(path, []byte(`[{"id":"n1",`), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := openCtx(testConfig(dir), 30*time.Second)
	if err == nil {
		st.Close()
		t.Fatal("started with a peers.json that does not parse")
	}
	if !errors.Is(err, ErrOpen) || !strings.Contains(err.Error(), path) {
		t.Errorf("error: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("peers.json: %v", err)
	}
}

// Recover gives up, changing nothing, while a running node holds the
// data directory.
func TestRecoverWhileRunning(t *testing.T) {
	dir := t.TempDir()
	st := open(t, testConfig(dir))
	defer st.Close()
	must(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "ie"}})
	before := dump(st)
	if err := Recover(testConfig(dir)); !errors.Is(err, ErrRestore) || !strings.Contains(err.Error(), "still running") {
		t.Fatalf("Recover of a running node's data_dir: %v", err)
	}
	if err := st.Barrier(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := dump(st); string(got) != string(before) {
		t.Error("the running node's state changed")
	}
}

// Recover of a survivor whose log holds an entry it cannot decode stops
// at that entry, naming it, and writes no snapshot; truncated, the log
// recovers.
func TestRecoverStopsAtUndecodableEntry(t *testing.T) {
	dir := t.TempDir()
	s := open(t, testConfig(dir))
	must(t, s, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "ie"}})
	want := dump(s)
	s.Close()
	bad := appendEntry(t, dir, []byte{255, 1, '{', '}'})
	snaps := func() int {
		entries, _ := os.ReadDir(filepath.Join(dir, "raft", "snapshots"))
		return len(entries)
	}
	before := snaps()
	err := Recover(testConfig(dir))
	if !errors.Is(err, ErrRestore) || !strings.Contains(err.Error(), "stopped applying the raft log at entry "+itoa(bad)) {
		t.Fatalf("Recover over an undecodable entry: %v", err)
	}
	if snaps() != before {
		t.Error("a failed Recover wrote a snapshot")
	}
	if _, err := TruncateLog(dir, bad); err != nil {
		t.Fatal(err)
	}
	if err := Recover(testConfig(dir)); err != nil {
		t.Fatal(err)
	}
	s = open(t, testConfig(dir))
	defer s.Close()
	if got := dump(s); string(got) != string(want) {
		t.Errorf("state after truncate and recover:\n%s\nwant\n%s", got, want)
	}
}
