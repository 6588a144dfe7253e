package acm_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// patch changes the body of the object ref names with change and writes
// it at the revision it read, again on a conflict, as kubectl patch does
// (the controllers write the same objects meanwhile).
func patch(t *testing.T, s *enginetest.Store, ref engine.ObjectRef, change func(body map[string]any), bumpGeneration bool) {
	t.Helper()
	for {
		var o engine.Object
		var ok bool
		s.Read(func(m *engine.Model) { o, ok = m.Object(ref.Key()) })
		if !ok {
			t.Fatalf("patch: %s not found", ref.Key())
		}
		var b map[string]any
		if err := json.Unmarshal(o.Body, &b); err != nil {
			t.Fatal(err)
		}
		change(b)
		o.Body, _ = json.Marshal(b)
		if bumpGeneration {
			o.Generation++
		}
		_, err := s.Apply(context.Background(), &engine.PutObject{Object: o, IfRevision: o.Revision})
		if !errors.Is(err, engine.ErrConflict) {
			if err != nil {
				t.Fatal(err)
			}
			return
		}
	}
}
