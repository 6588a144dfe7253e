package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// follower is a store that is not the leader.
type follower struct{ *enginetest.Store }

func (follower) Leader() bool { return false }

func TestLoadKeyRingCreatesOnceAndShares(t *testing.T) {
	st := enginetest.NewStore()
	ctx := context.Background()
	first, err := engine.LoadKeyRing(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := first.Sign(auth.Claims{InfraEnvID: "ie-1", Subject: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := engine.LoadKeyRing(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if second.ActiveKID() != first.ActiveKID() || len(second.KIDs()) != 1 {
		t.Fatalf("second load: %v, first: %v", second, first)
	}
	if c, err := second.Verify(tok); err != nil || c.InfraEnvID != "ie-1" {
		t.Fatalf("a token of the first ring does not verify with the reloaded one: %v", err)
	}
	var sec engine.Secret
	st.Read(func(m *engine.Model) { sec, _ = m.Secret(engine.KeyRingSecret) })
	if strings.Contains(sec.String(), "PRIVATE KEY") {
		t.Fatal("the secret prints its key")
	}
}

func TestLoadKeyRingFollowerWaitsForLeader(t *testing.T) {
	st := enginetest.NewStore()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got := make(chan *auth.KeyRing, 1)
	errc := make(chan error, 1)
	go func() {
		k, err := engine.LoadKeyRing(ctx, follower{st})
		got <- k
		errc <- err
	}()
	var stored bool
	st.Read(func(m *engine.Model) { _, stored = m.Secret(engine.KeyRingSecret) })
	if stored {
		t.Fatal("a follower created the key ring")
	}
	leader, err := engine.LoadKeyRing(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	k := <-got
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if k.ActiveKID() != leader.ActiveKID() {
		t.Fatalf("follower %v, leader %v", k, leader)
	}
}

func TestLoadKeyRingFollowerGivesUp(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := engine.LoadKeyRing(ctx, follower{enginetest.NewStore()}); err == nil {
		t.Fatal("a follower without a ring and a done context returned a ring")
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	st := enginetest.NewStore()
	if _, err := engine.LoadKeyRing(ctx, follower{st}); !errors.Is(err, engine.ErrNoKeyRing) && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("follower timing out: %v", err)
	}
	if st.Entries() != 0 {
		t.Fatal("a follower wrote to the store")
	}
}

func TestSaveKeyRingAfterRotate(t *testing.T) {
	st := enginetest.NewStore()
	ctx := context.Background()
	k, err := engine.LoadKeyRing(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	old := k.ActiveKID()
	if _, err := k.Rotate(); err != nil {
		t.Fatal(err)
	}
	if err := engine.SaveKeyRing(ctx, st, k); err != nil {
		t.Fatal(err)
	}
	again, err := engine.LoadKeyRing(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.KIDs(), k.KIDs()) || again.ActiveKID() == old {
		t.Fatalf("reloaded %v, saved %v", again, k)
	}
}

func TestLoadKeyRingRefusesGarbage(t *testing.T) {
	st := enginetest.NewStore()
	ctx := context.Background()
	if _, err := st.Apply(ctx, &engine.PutSecret{Secret: engine.Secret{Name: engine.KeyRingSecret,
		Data: map[string][]byte{engine.KeyRingDataKey: []byte(`{"version":1,"active":"x","keys":[]}`)}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.LoadKeyRing(ctx, st); err == nil {
		t.Fatal("a malformed stored ring was accepted")
	}
}
