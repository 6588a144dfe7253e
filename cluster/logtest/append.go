package logtest

import (
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
)

// AppendCommand writes a command entry holding data at the end of the raft
// log of the stopped node whose data directory is dataDir, in the node's
// current term, and returns the entry's index.
func AppendCommand(t testing.TB, dataDir string, data []byte) uint64 {
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
