package engine_test

import (
	"context"
	"errors"
	"log/slog"
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

// Two appliances share one store: a key rotated (and later retired) on one
// reaches the other's ring, so a token signed with the new key verifies
// there and one of the retired key stops verifying.
func TestFollowKeyRingOnOtherAppliance(t *testing.T) {
	st := enginetest.NewStore()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rotating, err := engine.LoadKeyRing(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	following, err := engine.LoadKeyRing(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { engine.FollowKeyRing(ctx, st, following, slog.New(slog.DiscardHandler)); close(done) }()
	defer func() { cancel(); <-done }()

	old := rotating.ActiveKID()
	oldTok, err := rotating.Sign(auth.Claims{InfraEnvID: "ie-1", Subject: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	kid, err := rotating.Rotate()
	if err != nil {
		t.Fatal(err)
	}
	if err := engine.SaveKeyRing(ctx, st, rotating); err != nil {
		t.Fatal(err)
	}
	newTok, err := rotating.Sign(auth.Claims{InfraEnvID: "ie-1", Subject: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return following.ActiveKID() == kid }, "the follower's ring to take the rotated key")
	if _, err := following.Verify(newTok); err != nil {
		t.Fatalf("a token of the rotated key does not verify on the follower: %v", err)
	}
	if _, err := following.Verify(oldTok); err != nil {
		t.Fatalf("a token of the previous key stopped verifying before it was retired: %v", err)
	}
	if err := rotating.Retire(old); err != nil {
		t.Fatal(err)
	}
	if err := engine.SaveKeyRing(ctx, st, rotating); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return !slices.Contains(following.KIDs(), old) }, "the follower to drop the retired key")
	if _, err := following.Verify(oldTok); !errors.Is(err, auth.ErrUnknownKey) {
		t.Fatalf("a retired key's token on the follower: %v, want ErrUnknownKey", err)
	}
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// PutSecret with IfRevision replaces only the secret last changed at that
// index: a stale or missing one is a conflict that changes nothing.
func TestPutSecretIfRevision(t *testing.T) {
	st := enginetest.NewStore()
	ctx := context.Background()
	put := func(rev uint64, v string) error {
		_, err := st.Apply(ctx, &engine.PutSecret{IfRevision: rev, Secret: engine.Secret{Name: "s", Data: map[string][]byte{"k": []byte(v)}}})
		return err
	}
	if err := put(7, "a"); !errors.Is(err, engine.ErrConflict) {
		t.Fatalf("missing secret with if_revision: %v", err)
	}
	if err := put(0, "a"); err != nil {
		t.Fatal(err)
	}
	var rev uint64
	value := func() string {
		var s engine.Secret
		st.Read(func(m *engine.Model) { s, _ = m.Secret("s") })
		rev = s.Revision
		return string(s.Data["k"])
	}
	value()
	if err := put(rev+1, "stale"); !errors.Is(err, engine.ErrConflict) || value() != "a" {
		t.Fatalf("stale if_revision: %v, value %q", err, value())
	}
	if err := put(rev, "b"); err != nil || value() != "b" {
		t.Fatalf("current if_revision: %v, value %q", err, value())
	}
}

// Two appliances rotate at once: the one whose write lands second finds
// the ring changed, starts again from the stored ring, and both new keys
// are in the ring stored at the end.
func TestUpdateKeyRingConcurrentRotations(t *testing.T) {
	st := enginetest.NewStore()
	ctx := context.Background()
	if _, err := engine.LoadKeyRing(ctx, st); err != nil {
		t.Fatal(err)
	}
	var theirs string
	calls := 0
	mine := ""
	ring, err := engine.UpdateKeyRing(ctx, st, func(k *auth.KeyRing) (err error) {
		calls++
		if calls == 1 { // the other appliance's rotation lands while this one works
			other, err := engine.UpdateKeyRing(ctx, st, func(o *auth.KeyRing) (err error) { theirs, err = o.Rotate(); return err })
			if err != nil || other.ActiveKID() != theirs {
				t.Fatalf("the other rotation: %v", err)
			}
		}
		mine, err = k.Rotate()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := engine.LoadKeyRing(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 || stored.ActiveKID() != mine || !slices.Contains(stored.KIDs(), theirs) || !slices.Equal(stored.KIDs(), ring.KIDs()) {
		t.Fatalf("calls %d; stored %v (active %s), want both %s and %s", calls, stored.KIDs(), stored.ActiveKID(), theirs, mine)
	}
}

// An error of the change is returned as it is and nothing is written.
func TestUpdateKeyRingChangeFails(t *testing.T) {
	st := enginetest.NewStore()
	ctx := context.Background()
	if _, err := engine.LoadKeyRing(ctx, st); err != nil {
		t.Fatal(err)
	}
	before := st.Entries()
	boom := errors.New("boom")
	if _, err := engine.UpdateKeyRing(ctx, st, func(*auth.KeyRing) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if st.Entries() != before {
		t.Fatal("a failed change wrote to the store")
	}
}
