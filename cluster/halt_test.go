package cluster

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"

	"github.com/rackboot/rackboot/engine"
)

// listeningSockets returns the inodes of this process's listening TCP
// sockets, as ss -ltnp would list them.
func listeningSockets(t *testing.T) map[string]bool {
	t.Helper()
	listening := map[string]bool{}
	for _, name := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) > 9 && fields[3] == "0A" { // TCP_LISTEN
				listening[fields[9]] = true
			}
		}
		f.Close()
	}
	ours := map[string]bool{}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		inode := strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")
		if listening[inode] {
			ours[inode] = true
		}
	}
	return ours
}

// A one-voter appliance opens no raft port: nothing outside the process
// can send it AppendEntries (it used to listen on 127.0.0.1:<random>).
func TestOneVoterListensOnNothing(t *testing.T) {
	before := listeningSockets(t)
	s := open(t, testConfig(t.TempDir()))
	defer s.Close()
	must(t, s, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "ie"}})
	after := listeningSockets(t)
	for inode := range after {
		if !before[inode] {
			t.Errorf("the store opened a listening TCP socket (inode %s)", inode)
		}
	}
}

// A data directory written by an older rackboot, whose raft configuration
// names a TCP address, opens with the in-memory transport: the node elects
// itself, keeps its state and takes writes.
func TestOneVoterOpensOlderTCPConfiguration(t *testing.T) {
	dir := t.TempDir()
	raftDir := filepath.Join(dir, "raft")
	if err := os.MkdirAll(raftDir, 0o750); err != nil {
		t.Fatal(err)
	}
	id, err := nodeID(raftDir, "")
	if err != nil {
		t.Fatal(err)
	}
	logs, err := raftboltdb.NewBoltStore(filepath.Join(raftDir, "raft.db"))
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := raft.NewFileSnapshotStore(raftDir, 2, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	_, trans := raft.NewInmemTransport("127.0.0.1:41234")
	rc := testConfig(dir).withDefaults().raftConfig(id)
	old := raft.Configuration{Servers: []raft.Server{{ID: id, Address: "127.0.0.1:41234"}}}
	if err := raft.BootstrapCluster(rc, logs, logs, snaps, trans, old); err != nil {
		t.Fatal(err)
	}
	logs.Close()

	s := open(t, testConfig(dir))
	defer s.Close()
	must(t, s, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "ie"}})
}

// appendEntry writes a command entry at the end of a stopped node's log,
// in its current term: what a peer that reached the log could commit.
func appendEntry(t *testing.T, dir string, data []byte) uint64 {
	t.Helper()
	logs, err := raftboltdb.NewBoltStore(filepath.Join(dir, "raft", "raft.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	last, err := logs.LastIndex()
	if err != nil {
		t.Fatal(err)
	}
	term, err := logs.GetUint64([]byte("CurrentTerm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := logs.StoreLog(&raft.Log{Index: last + 1, Term: term, Type: raft.LogCommand, Data: data}); err != nil {
		t.Fatal(err)
	}
	return last + 1
}

// An entry that does not decode, however it got into the log, stops the
// node with an error naming it instead of a panic on every start; the
// state before it is kept, and TruncateLog is the way out.
func TestUndecodableEntryHaltsAndTruncateRecovers(t *testing.T) {
	dir := t.TempDir()
	s := open(t, testConfig(dir))
	write(t, s, 1, 3)
	want := dump(s)
	s.Close()

	bad := appendEntry(t, dir, []byte{255, 1, '{', '}'})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Open(ctx, testConfig(dir))
	if !errors.Is(err, ErrHalted) {
		t.Fatalf("open with an undecodable entry: %v, want ErrHalted", err)
	}
	if !strings.Contains(err.Error(), "entry "+itoa(bad)) || !strings.Contains(err.Error(), "unknown command type 255") {
		t.Errorf("error %q does not name entry %d and what is wrong with it", err, bad)
	}

	if _, err := TruncateLog(dir, bad+100); err == nil {
		t.Error("truncating past the end of the log was accepted")
	}
	got, err := TruncateLog(dir, bad)
	if err != nil {
		t.Fatal(err)
	}
	if got.From != bad || got.To < bad {
		t.Errorf("truncated %+v, want from %d", got, bad)
	}
	s = open(t, testConfig(dir))
	defer s.Close()
	if !bytes.Equal(dump(s), want) {
		t.Error("the state before the bad entry is not what it was")
	}
	must(t, s, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: uuid(99), Name: "after"}})
}

// Entries already in a snapshot are not removed.
func TestTruncateLogKeepsSnapshots(t *testing.T) {
	dir := t.TempDir()
	s := open(t, testConfig(dir))
	write(t, s, 1, 2)
	if err := s.raft.Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	write(t, s, 3, 1)
	snapped := s.raft.Stats()["last_snapshot_index"]
	s.Close()
	if _, err := TruncateLog(dir, 1); err == nil || !strings.Contains(err.Error(), "snapshot") {
		t.Errorf("truncating into snapshot %s: %v", snapped, err)
	}
}

// A running rack whose log gets an entry nobody can decode halts on every
// member (Halted, ErrHalted naming it) and refuses to snapshot: no member
// goes on with a state that lacks the entry, and none panics.
func TestRunningRackHaltsOnUndecodableEntry(t *testing.T) {
	r := newRack(t, 3)
	r.start(r.nodes...)
	ld := r.leader()
	must(t, ld.st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "ie"}})
	f := ld.st.raft.Apply([]byte{254, 1, '{', '}'}, 10*time.Second)
	if err := f.Error(); err != nil {
		t.Fatal(err)
	}
	for _, nd := range r.nodes {
		select {
		case <-nd.st.Halted():
		case <-time.After(30 * time.Second):
			t.Fatalf("%s did not halt", nd.id)
		}
		if err := nd.st.HaltErr(); !errors.Is(err, ErrHalted) || !strings.Contains(err.Error(), "entry "+itoa(f.Index())) {
			t.Errorf("%s: %v", nd.id, err)
		}
	}
	if err := ld.st.raft.Snapshot().Error(); err == nil {
		t.Error("a halted node took a snapshot")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := ld.st.Apply(ctx, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: uuid(2), Name: "late"}}); !errors.Is(err, ErrHalted) {
		t.Errorf("a write on a halted node: %v, want ErrHalted", err)
	}
}

func itoa(i uint64) string { return strconv.FormatUint(i, 10) }
