package signingkeys

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/hosts"
)

// A rotation stores the new ring and holds it; the previous key keeps
// verifying until retired; retiring the active key is a conflict and an
// unknown one not found, and neither writes anything.
func TestRotateRetire(t *testing.T) {
	ctx := context.Background()
	st := enginetest.NewStore()
	keys, err := engine.LoadKeyRing(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := hosts.New(hosts.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Store: st, Keys: keys, Hosts: hs})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := s.Current()
	if err := s.Rotate(ctx, "admin"); err != nil {
		t.Fatal(err)
	}
	active, kids := s.Current()
	if active == first || !slices.Contains(kids, first) || !slices.Contains(kids, active) {
		t.Fatalf("after a rotation: active %s, kids %v (first %s)", active, kids, first)
	}
	stored, err := engine.LoadKeyRing(ctx, st)
	if err != nil || stored.ActiveKID() != active {
		t.Fatalf("stored ring's active key %s (%v), held %s", stored.ActiveKID(), err, active)
	}
	before := st.Entries()
	if err := s.Retire(ctx, active, "admin"); !errors.Is(err, engine.ErrConflict) {
		t.Errorf("retiring the active key: %v", err)
	}
	if err := s.Retire(ctx, "no-such-kid", "admin"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("retiring an unknown key: %v", err)
	}
	if st.Entries() != before {
		t.Errorf("refused retirements wrote %d entries", st.Entries()-before)
	}
	if err := s.Retire(ctx, first, "admin"); err != nil {
		t.Fatal(err)
	}
	if _, kids := s.Current(); slices.Contains(kids, first) {
		t.Errorf("retired key %s still held: %v", first, kids)
	}
}
