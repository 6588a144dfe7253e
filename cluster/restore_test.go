package cluster

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/backup"
)

// A backup of a node, restored into an empty data directory, opens as a
// one-voter node with the same state that takes writes and keeps them
// across a restart; a data directory holding state is refused and left
// as it was.
func TestRestoreIntoEmpty(t *testing.T) {
	src := open(t, testConfig(t.TempDir()))
	defer src.Close()
	must(t, src, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "ie"}})
	must(t, src, &engine.PutSecret{Secret: engine.Secret{Name: "s", Data: map[string][]byte{"k": []byte("v")}}})
	b, _, err := backup.Take(context.Background(), src, "src", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	_, m, err := backup.Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	if err := Restore(testConfig(dir), m); err != nil {
		t.Fatal(err)
	}
	dst := open(t, testConfig(dir))
	if got, want := dump(dst), dump(src); !bytes.Equal(got, want) {
		t.Errorf("restored state:\n%s\nwant\n%s", got, want)
	}
	must(t, dst, &engine.CreateNMStateConfig{Config: engine.NMStateConfig{Name: "after"}})
	after := dump(dst)
	dst.Close()

	_, m2, _ := backup.Read(bytes.NewReader(b))
	if err := Restore(testConfig(dir), m2); !errors.Is(err, ErrRestore) {
		t.Fatalf("restore over state: %v", err)
	}
	dst = open(t, testConfig(dir))
	defer dst.Close()
	if got := dump(dst); !bytes.Equal(got, after) {
		t.Errorf("a refused restore changed the state:\n%s\nwant\n%s", got, after)
	}
	if _, err := os.Stat(filepath.Join(dir, "raft", "node-id")); err != nil {
		t.Error(err)
	}
}
