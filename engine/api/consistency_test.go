package api

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/models"
)

// laggingStore is an appliance that has not applied the latest writes yet:
// once frozen, its reads see the model of that moment until a Barrier
// catches it up (as a follower's ReadIndex barrier does).
type laggingStore struct {
	*enginetest.Store
	mu     sync.Mutex
	frozen *engine.Model
}

func (s *laggingStore) freeze() {
	s.Store.Read(func(m *engine.Model) {
		s.mu.Lock()
		s.frozen = m.Clone()
		s.mu.Unlock()
	})
}

func (s *laggingStore) Read(fn func(m *engine.Model)) {
	s.mu.Lock()
	frozen := s.frozen
	s.mu.Unlock()
	if frozen != nil {
		fn(frozen)
		return
	}
	s.Store.Read(fn)
}

func (s *laggingStore) Barrier(ctx context.Context) error {
	s.mu.Lock()
	s.frozen = nil
	s.mu.Unlock()
	return s.Store.Barrier(ctx)
}

// A read of one object on an appliance behind the leader shows the latest
// acknowledged write (the barrier catches it up); a list may be stale and
// names the index of the state it shows.
func TestReadsOnLaggingAppliance(t *testing.T) {
	st := &laggingStore{Store: enginetest.NewStore()}
	e := newEnv(t, st)
	ie := e.createInfraEnv("")
	var behind uint64
	st.Store.Read(func(m *engine.Model) { behind = m.Index() })
	st.freeze() // from here this appliance does not see the writes it forwards
	if _, err := st.Apply(context.Background(), &engine.UpdateInfraEnv{ID: ie.ID, Patch: engine.InfraEnvPatch{Name: ptr("renamed")}}); err != nil {
		t.Fatal(err)
	}

	var listed []models.InfraEnv
	r := e.must(adminCred(), 200, "GET", "/infra-envs", nil)
	r.decode(t, &listed)
	idx, err := strconv.ParseUint(r.hdr.Get(IndexHeader), 10, 64)
	if err != nil {
		t.Fatalf("a list does not say the index it shows: %q", r.hdr.Get(IndexHeader))
	}
	if idx != behind || len(listed) != 1 || listed[0].Name != "ie1" {
		t.Fatalf("list of a lagging appliance: index %d (want %d), %+v", idx, behind, listed)
	}

	var got models.InfraEnv
	e.must(adminCred(), 200, "GET", "/infra-envs/"+ie.ID, nil).decode(t, &got)
	if got.Name != "renamed" {
		t.Fatalf("GET of one infra-env on a lagging appliance shows %v, want the acknowledged rename", got.Name)
	}
	if h := e.do(adminCred(), "GET", "/infra-envs/"+ie.ID, nil).hdr.Get(IndexHeader); h != "" {
		t.Fatalf("a linearizable read claims a stale index %q", h)
	}
}

// A token signed by a key rotated on another appliance a moment ago
// verifies here, before this appliance's key-ring follower has run.
func TestTokenOfKeyRotatedElsewhere(t *testing.T) {
	st := enginetest.NewStore()
	e := newEnv(t, st)
	ie := e.createInfraEnv("")
	if err := engine.SaveKeyRing(context.Background(), st, e.keys); err != nil {
		t.Fatal(err)
	}
	other, err := engine.LoadKeyRing(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Rotate(); err != nil {
		t.Fatal(err)
	}
	if err := engine.SaveKeyRing(context.Background(), st, other); err != nil {
		t.Fatal(err)
	}
	tok, err := other.Sign(auth.Claims{InfraEnvID: ie.ID, Subject: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	e.must(cred{agent: tok}, http.StatusOK, "GET", "/infra-envs/"+ie.ID, nil)

	// A key nobody holds stays refused.
	stranger := auth.NewKeyRing()
	if _, err := stranger.Generate(); err != nil {
		t.Fatal(err)
	}
	bad, err := stranger.Sign(auth.Claims{InfraEnvID: ie.ID, Subject: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	e.wantInfraError(e.do(cred{agent: bad}, "GET", "/infra-envs/"+ie.ID, nil), http.StatusUnauthorized, "")
}

func ptr[T any](v T) *T { return &v }
