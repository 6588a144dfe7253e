package cluster

import (
	"bytes"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// memSink is a raft.SnapshotSink in memory.
type memSink struct {
	bytes.Buffer
	closed, canceled bool
}

func (m *memSink) ID() string    { return "mem" }
func (m *memSink) Cancel() error { m.canceled = true; return nil }
func (m *memSink) Close() error  { m.closed = true; return nil }

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

func TestFSMSnapshotRestore(t *testing.T) {
	src := newFSM(engine.NewMachine())
	for i := range 10 {
		cmd := &engine.CreateInfraEnv{Stamp: engine.Stamp{At: time.Unix(int64(i), 0).UTC()}, InfraEnv: engine.InfraEnv{ID: uuid(i), Name: "ie"}}
		src.mach.ApplyCommand(uint64(i+1), cmd)
	}
	snap, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// Changes after the snapshot was taken are not in it.
	src.mach.ApplyCommand(11, &engine.DeleteInfraEnv{ID: uuid(0)})
	sink := &memSink{}
	if err := snap.Persist(sink); err != nil || !sink.closed {
		t.Fatalf("persist: %v closed=%v", err, sink.closed)
	}
	snap.Release()

	dst := newFSM(engine.NewMachine())
	if err := dst.Restore(nopCloser{bytes.NewReader(sink.Bytes())}); err != nil {
		t.Fatal(err)
	}
	var n int
	dst.mach.Read(func(m *engine.Model) {
		for range m.InfraEnvs() {
			n++
		}
		if m.Index() != 10 {
			t.Errorf("restored index %d", m.Index())
		}
	})
	if n != 10 {
		t.Errorf("restored %d infra-envs, want 10", n)
	}
	if !bytes.Equal(enginetest.Dump(dst.mach.Clone()), sink.Bytes()) {
		t.Error("restored model does not dump to the snapshot")
	}
	if err := dst.Restore(nopCloser{bytes.NewReader([]byte("junk"))}); err == nil {
		t.Error("restored junk")
	}
}
