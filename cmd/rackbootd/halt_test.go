package main

import (
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
)

// appendLogEntry writes a command entry at the end of a stopped daemon's
// raft log, in its current term: what a peer that reached the log could
// have committed. It returns the entry's index.
func appendLogEntry(t *testing.T, dataDir string, data []byte) uint64 {
	t.Helper()
	logs, err := raftboltdb.NewBoltStore(filepath.Join(dataDir, "raft", "raft.db"))
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

// A raft log entry rackbootd cannot decode stops it with exit status 78
// (which the unit does not restart) and a message naming the entry and the
// way out, instead of a panic on every start; `rackbootd truncate-log`
// removes it and the daemon starts again with its state.
func TestUndecodableLogEntryStopsWithWayOut(t *testing.T) {
	d := startDaemon(t)
	d.waitNote("READY=1")
	id := d.createInfraEnv("kept")
	d.stop()

	bad := appendLogEntry(t, filepath.Join(d.dir, "state"), []byte{250, 1, '{', '}'})
	_, stderr, code := runBinary(t, d.dir, "--config", "rackboot.toml")
	if code != exitHalted {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitHalted, stderr)
	}
	for _, want := range []string{"entry " + strconv.FormatUint(bad, 10), "unknown command type 250", "rackbootd truncate-log --config FILE --from INDEX"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "panic") {
		t.Errorf("rackbootd panicked:\n%s", stderr)
	}

	from := strconv.FormatUint(bad, 10)
	if _, stderr, code := runBinary(t, d.dir, "truncate-log", "--config", "rackboot.toml", "--from", "0"); code != 2 {
		t.Errorf("truncate-log --from 0: exit %d, %s", code, stderr)
	}
	out, stderr, code := runBinary(t, d.dir, "truncate-log", "--config", "rackboot.toml", "--from", from)
	if code != 0 || !strings.HasPrefix(out, "removed raft log entries "+from+" to ") {
		t.Fatalf("truncate-log: exit %d, stdout %q, stderr %q", code, out, stderr)
	}

	d.start(nil)
	d.waitNote("READY=1")
	if code, body := d.call("GET", "/infra-envs/"+id, "Authorization: Bearer "+d.adminToken(), ""); code != http.StatusOK || !strings.Contains(body, `"kept"`) {
		t.Errorf("the infra-env written before the bad entry: %d %s", code, body)
	}
	d.createInfraEnv("after")
}
