package engine_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

const (
	ieID  = "11111111-1111-4111-8111-111111111111"
	ie2ID = "22222222-2222-4222-8222-222222222222"
	clID  = "33333333-3333-4333-8333-333333333333"
	h1ID  = "44444444-4444-4444-8444-444444444444"
)

var t0 = time.Date(2026, 11, 21, 5, 0, 0, 0, time.UTC)

func newStore() *enginetest.Store {
	now := t0
	return enginetest.NewStoreAt(func() time.Time { now = now.Add(time.Second); return now })
}

func must(t testing.TB, st engine.Store, cmd engine.Command) any {
	t.Helper()
	v, err := st.Apply(context.Background(), cmd)
	if err != nil {
		t.Fatalf("%T: %v", cmd, err)
	}
	return v
}

// expectErr applies cmd, wants an error wrapping sentinel, and checks the
// model did not change.
func expectErr(t *testing.T, st *enginetest.Store, cmd engine.Command, sentinel error) {
	t.Helper()
	before := objects(st.Dump())
	_, err := st.Apply(context.Background(), cmd)
	if !errors.Is(err, sentinel) {
		t.Fatalf("%T: err = %v, want %v", cmd, err, sentinel)
	}
	if after := objects(st.Dump()); !bytes.Equal(before, after) {
		t.Errorf("%T failed but changed the model", cmd)
	}
}

// objects drops the header line (which holds the log index) of a dump.
func objects(dump []byte) []byte {
	_, rest, _ := bytes.Cut(dump, []byte("\n"))
	return rest
}

func TestInfraEnvLifecycle(t *testing.T) {
	st := newStore()
	v := must(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "rack1", NTPSources: []string{"10.0.0.1"}}})
	ie := v.(engine.InfraEnv)
	if ie.CreatedAt != t0.Add(time.Second) || ie.Revision != 1 {
		t.Errorf("meta = %+v", ie.Meta)
	}
	expectErr(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "again"}}, engine.ErrConflict)
	expectErr(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: "not-a-uuid", Name: "x"}}, engine.ErrInvalid)
	expectErr(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ie2ID, Name: "x", ClusterID: clID}}, engine.ErrNotFound)

	key := "ssh-ed25519 AAAA"
	must(t, st, &engine.UpdateInfraEnv{ID: ieID, Patch: engine.InfraEnvPatch{SSHAuthorizedKey: &key}})
	st.Read(func(m *engine.Model) {
		got, ok := m.InfraEnv(ieID)
		if !ok || got.SSHAuthorizedKey != key || got.Name != "rack1" || len(got.NTPSources) != 1 {
			t.Errorf("after patch: %+v", got)
		}
		if got.CreatedAt != ie.CreatedAt || got.UpdatedAt == ie.UpdatedAt || got.Revision <= ie.Revision {
			t.Errorf("meta after patch: %+v", got.Meta)
		}
	})
	empty := ""
	expectErr(t, st, &engine.UpdateInfraEnv{ID: ieID, Patch: engine.InfraEnvPatch{Name: &empty}}, engine.ErrInvalid)
	expectErr(t, st, &engine.UpdateInfraEnv{ID: ie2ID}, engine.ErrNotFound)

	must(t, st, &engine.RegisterHost{Host: engine.Host{ID: h1ID, InfraEnvID: ieID, Status: "discovering"}})
	expectErr(t, st, &engine.DeleteInfraEnv{ID: ieID}, engine.ErrConflict)
	must(t, st, &engine.DeleteHost{ID: h1ID})
	must(t, st, &engine.DeleteInfraEnv{ID: ieID})
	expectErr(t, st, &engine.DeleteInfraEnv{ID: ieID}, engine.ErrNotFound)
}

func TestHostLateBinding(t *testing.T) {
	st := newStore()
	must(t, st, &engine.CreateCluster{Cluster: engine.Cluster{ID: clID, Name: "c1", ControlPlaneCount: 3}})
	must(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "unbound"}})
	must(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ie2ID, Name: "bound", ClusterID: clID}})
	inv := []byte(`{"cpu":{"count":4}}`)
	must(t, st, &engine.RegisterHost{Host: engine.Host{ID: h1ID, InfraEnvID: ieID, Status: "discovering-unbound", Inventory: inv}})

	expectErr(t, st, &engine.RegisterHost{Host: engine.Host{ID: h1ID, InfraEnvID: ie2ID}}, engine.ErrConflict)
	expectErr(t, st, &engine.UpdateHost{ID: h1ID, InfraEnvID: ie2ID}, engine.ErrNotFound)

	role, approved := "master", true
	must(t, st, &engine.UpdateHost{ID: h1ID, InfraEnvID: ieID, Patch: engine.HostPatch{Role: &role, Approved: &approved}})
	must(t, st, &engine.BindHost{ID: h1ID, ClusterID: clID})
	expectErr(t, st, &engine.DeleteCluster{ID: clID}, engine.ErrConflict)
	expectErr(t, st, &engine.SetHostStatus{ID: h1ID, Status: "known", From: []string{"insufficient"}}, engine.ErrConflict)
	must(t, st, &engine.SetHostStatus{ID: h1ID, Status: "binding", StatusInfo: "bound", From: []string{"discovering-unbound"}})

	// Registering again keeps what the user set and replaces what the
	// agent reports.
	must(t, st, &engine.RegisterHost{Host: engine.Host{ID: h1ID, InfraEnvID: ieID, Status: "discovering", Inventory: []byte(`{}`)}})
	st.Read(func(m *engine.Model) {
		h, _ := m.Host(h1ID)
		if h.ClusterID != clID || h.Role != "master" || !h.Approved || h.Status != "discovering" || string(h.Inventory) != "{}" {
			t.Errorf("re-registered host = %+v", h)
		}
	})
	st.Read(func(m *engine.Model) {
		var ids []string
		for h := range m.HostsOfInfraEnv(ieID) {
			ids = append(ids, h.ID)
		}
		if len(ids) != 1 || ids[0] != h1ID {
			t.Errorf("HostsOfInfraEnv(%s) = %v", ieID, ids)
		}
		for h := range m.HostsOfInfraEnv(ie2ID) {
			t.Errorf("HostsOfInfraEnv(%s) yields %s", ie2ID, h.ID)
		}
	})
	must(t, st, &engine.UnbindHost{ID: h1ID})
	must(t, st, &engine.DeleteInfraEnv{ID: ie2ID})
	must(t, st, &engine.DeleteCluster{ID: clID})
}

func TestHostOfBoundInfraEnvCannotUnbind(t *testing.T) {
	st := newStore()
	must(t, st, &engine.CreateCluster{Cluster: engine.Cluster{ID: clID, Name: "c1"}})
	must(t, st, &engine.CreateInfraEnv{InfraEnv: engine.InfraEnv{ID: ieID, Name: "bound", ClusterID: clID}})
	v := must(t, st, &engine.RegisterHost{Host: engine.Host{ID: h1ID, InfraEnvID: ieID, Status: "discovering"}})
	if v.(engine.Host).ClusterID != clID {
		t.Errorf("host of a bound infra-env is not bound: %+v", v)
	}
	expectErr(t, st, &engine.UnbindHost{ID: h1ID}, engine.ErrConflict)
	expectErr(t, st, &engine.RegisterHost{Host: engine.Host{ID: h1ID, InfraEnvID: ie2ID}}, engine.ErrNotFound)
}

func TestObjectsAndEvents(t *testing.T) {
	st := newStore()
	must(t, st, &engine.PutSecret{Secret: engine.Secret{Name: "pull", Data: map[string][]byte{".dockerconfigjson": []byte("s3cret")}}})
	must(t, st, &engine.PutImageSet{ImageSet: engine.ImageSet{Name: "4.17", Version: "4.17.0"}})
	must(t, st, &engine.CreateNMStateConfig{Config: engine.NMStateConfig{Name: "n1", Labels: map[string]string{"rack": "1"}}})
	expectErr(t, st, &engine.CreateNMStateConfig{Config: engine.NMStateConfig{Name: "n1"}}, engine.ErrConflict)
	for i := range 3 {
		seq := must(t, st, &engine.AppendEvent{Event: engine.Event{Severity: "info", Message: "hello", HostID: h1ID}})
		if seq != uint64(i+1) {
			t.Errorf("event %d seq = %v", i, seq)
		}
	}
	expectErr(t, st, &engine.AppendEvent{}, engine.ErrInvalid)
	st.Read(func(m *engine.Model) {
		var seqs []uint64
		for e := range m.Events(1) {
			seqs = append(seqs, e.Seq)
		}
		if len(seqs) != 2 || seqs[0] != 2 {
			t.Errorf("events after 1: %v", seqs)
		}
		s, _ := m.Secret("pull")
		if bytes.Contains([]byte(s.String()), []byte("s3cret")) {
			t.Error("Secret.String shows the data")
		}
	})
	must(t, st, &engine.DeleteSecret{Name: "pull"})
	must(t, st, &engine.DeleteImageSet{Name: "4.17"})
	must(t, st, &engine.DeleteNMStateConfig{Name: "n1"})
	expectErr(t, st, &engine.DeleteSecret{Name: "pull"}, engine.ErrNotFound)
}
