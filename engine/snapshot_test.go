package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// populate applies one command of most kinds.
func populate(t testing.TB, st engine.Store) {
	t.Helper()
	must(t, st, &engine.PutSecret{Secret: engine.Secret{Name: "pull", Data: map[string][]byte{"k": []byte("v")}}})
	must(t, st, &engine.PutImageSet{ImageSet: engine.ImageSet{Name: "4.17"}})
	must(t, st, &engine.CreateCluster{Cluster: engine.Cluster{ID: clID, Name: "c1", APIVIPs: []string{"10.0.0.5"}}})
	must(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "ie", Labels: map[string]string{"a": "b"}, Proxy: &engine.Proxy{HTTPProxy: "http://p"}}})
	must(t, st, &engine.CreateNMStateConfig{Config: engine.NMStateConfig{Name: "n1", Config: "interfaces: []\n"}})
	must(t, st, &engine.RegisterHost{Host: engine.Host{ID: h1ID, InfraEnvID: ieID, Status: "discovering", Inventory: []byte(`{"hostname":"h1"}`)}})
	must(t, st, &engine.AppendEvent{Event: engine.Event{Severity: "info", Message: "registered", HostID: h1ID}})
	must(t, st, &engine.LeaseCommit{Leases: []engine.LeaseRecord{
		{IP: netip.MustParseAddr("10.0.0.10"), MAC: "52:54:00:00:00:01", Expires: t0.Add(time.Hour)},
		{IP: netip.MustParseAddr("10.0.0.11"), Expires: t0.Add(time.Hour)}, // declined
	}})
}

func TestSnapshotRoundTrip(t *testing.T) {
	st := newStore()
	populate(t, st)
	dump := st.Dump()
	m, err := engine.ReadModel(bytes.NewReader(dump))
	if err != nil {
		t.Fatal(err)
	}
	if again := enginetest.Dump(m); !bytes.Equal(dump, again) {
		t.Errorf("snapshot does not round-trip:\n%s\n---\n%s", dump, again)
	}
	mac, _ := net.ParseMAC("52:54:00:00:00:01")
	if l, ok := m.LeaseByMAC(mac); !ok || l.IP != netip.MustParseAddr("10.0.0.10") {
		t.Errorf("restored lease by MAC = %v %v", l, ok)
	}
	if m.Index() != st.Entries() {
		t.Errorf("restored index %d, want %d", m.Index(), st.Entries())
	}
}

func TestReadModelRejects(t *testing.T) {
	for name, in := range map[string]string{
		"empty":        "",
		"other format": `{"format":"x","version":1}`,
		"newer":        `{"format":"rackboot-model","version":2}`,
		"unknown kind": `{"format":"rackboot-model","version":1}` + "\n" + `{"k":"dragon","v":{}}`,
		"bad lease":    `{"format":"rackboot-model","version":1}` + "\n" + `{"k":"lease","v":{"ip":"::1"}}`,
		"truncated":    `{"format":"rackboot-model","version":1}` + "\n" + `{"k":"host","v":{"id":`,
	} {
		if _, err := engine.ReadModel(strings.NewReader(in)); !errors.Is(err, engine.ErrSnapshot) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// A clone does not see commands applied after it was taken.
func TestCloneIsolation(t *testing.T) {
	mach := engine.NewMachine()
	apply := func(i uint64, cmd engine.Command) {
		cmd.SetTime(t0)
		b, err := engine.Encode(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if r := mach.Apply(i, b); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	apply(1, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "ie"}})
	apply(2, &engine.AppendEvent{Event: engine.Event{Severity: "info", Message: "one"}})
	clone := mach.Clone()
	before := enginetest.Dump(clone)
	name := "renamed"
	apply(3, &engine.UpdateInfraEnv{ID: ieID, Patch: engine.InfraEnvPatch{Name: &name}})
	apply(4, &engine.AppendEvent{Event: engine.Event{Severity: "info", Message: "two"}})
	apply(5, &engine.LeaseCommit{Leases: []engine.LeaseRecord{{IP: netip.MustParseAddr("10.0.0.2"), MAC: "52:54:00:00:00:02"}}})
	if after := enginetest.Dump(clone); !bytes.Equal(before, after) {
		t.Errorf("clone changed:\n%s\n---\n%s", before, after)
	}
}

func TestEventsBounded(t *testing.T) {
	mach := engine.NewMachine()
	for i := range engine.MaxEvents + 10 {
		cmd := &engine.AppendEvent{Stamp: engine.Stamp{At: t0}, Event: engine.Event{Severity: "info", Message: fmt.Sprint(i)}}
		mach.ApplyCommand(uint64(i+1), cmd)
	}
	mach.Read(func(m *engine.Model) {
		n, first := 0, uint64(0)
		for e := range m.Events(0) {
			if n == 0 {
				first = e.Seq
			}
			n++
		}
		if n != engine.MaxEvents || first != 11 {
			t.Errorf("kept %d events from seq %d", n, first)
		}
	})
}

func TestSubscribe(t *testing.T) {
	st := newStore()
	ctx, cancel := context.WithCancel(context.Background())
	ch := st.Subscribe(ctx)
	must(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "ie"}})
	must(t, st, &engine.DeleteInfraEnv{ID: ieID})
	want := []engine.Change{{Index: 1, Kind: engine.KindInfraEnv, ID: ieID}, {Index: 2, Kind: engine.KindInfraEnv, ID: ieID, Deleted: true}}
	for _, w := range want {
		if got := <-ch; got != w {
			t.Errorf("change = %+v, want %+v", got, w)
		}
	}
	cancel()
	if _, ok := <-ch; ok {
		t.Error("channel open after cancel")
	}
}

// A subscriber that does not read is dropped instead of blocking Apply.
func TestSlowSubscriberDropped(t *testing.T) {
	st := newStore()
	ch := st.Subscribe(context.Background())
	recs := make([]engine.LeaseRecord, 0, 9000)
	for i := range 9000 {
		recs = append(recs, engine.LeaseRecord{IP: netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)})})
	}
	must(t, st, &engine.LeaseCommit{Leases: recs})
	n := 0
	for range ch {
		n++
	}
	if n >= 9000 {
		t.Errorf("received all %d changes from a buffer that should have overflowed", n)
	}
}

// ReadModel rejects or loads any input without panicking, and what it
// loads writes out again as a snapshot it reads back the same.
func FuzzReadModel(f *testing.F) {
	st := newStore()
	populate(f, st)
	f.Add(st.Dump())
	f.Add([]byte(`{"format":"rackboot-model","version":1}` + "\n" + `{"k":"lease","v":{"ip":"10.0.0.1","mac":"zz"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := engine.ReadModel(bytes.NewReader(b))
		if err != nil {
			return
		}
		dump := enginetest.Dump(m)
		m2, err := engine.ReadModel(bytes.NewReader(dump))
		if err != nil {
			t.Fatalf("dump of a loaded model does not load: %v\n%s", err, dump)
		}
		if again := enginetest.Dump(m2); !bytes.Equal(dump, again) {
			t.Fatalf("dump not stable:\n%s\n---\n%s", dump, again)
		}
	})
}
