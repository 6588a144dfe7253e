package engine_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/enginetest"
)

// DeleteObject's Propagation sets the collector's finalizer and marks
// the object (Orphan, Foreground), swaps it on an object already being
// deleted, and Background takes it off (the object goes); a delete with
// a Propagation is body version 2, so an older rackboot refuses it
// rather than delete the object at once.
func TestDeleteObjectPropagation(t *testing.T) {
	s := enginetest.NewStore()
	ctx := context.Background()
	apply := func(c engine.Command) {
		t.Helper()
		if _, err := s.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	ref := engine.ObjectRef{Kind: "ConfigMap", Namespace: "ns", Name: "c"}
	apply(&engine.PutObject{Create: true, Object: engine.Object{ObjectRef: engine.NamespaceRef("ns"), UID: "n", Body: json.RawMessage(`{}`)}})
	apply(&engine.PutObject{Create: true, Object: engine.Object{ObjectRef: ref, UID: "u", Body: json.RawMessage(`{"data":{"k":"v"},"metadata":{"finalizers":["example.com/a"]}}`)}})
	for _, step := range []struct {
		policy string
		want   []string
	}{
		{engine.PropagateOrphan, []string{"example.com/a", "orphan"}},
		{engine.PropagateForeground, []string{"example.com/a", "foregroundDeletion"}},
		{"", []string{"example.com/a", "foregroundDeletion"}},
		{engine.PropagateBackground, []string{"example.com/a"}},
	} {
		apply(&engine.DeleteObject{Ref: ref, Propagation: step.policy})
		s.Read(func(m *engine.Model) {
			o, ok := m.Object(ref.Key())
			if !ok || !o.Deleting() || !slices.Equal(o.Finalizers(), step.want) {
				t.Errorf("after a %q delete: %v %v, want it marked with %v", step.policy, ok, o.Finalizers(), step.want)
			}
		})
	}
	if _, err := s.Apply(ctx, &engine.DeleteObject{Ref: ref, Propagation: "Sideways"}); err == nil {
		t.Error("an unknown propagation policy applied")
	}
	for policy, version := range map[string]byte{"": 1, engine.PropagateOrphan: 2} {
		b, err := engine.Encode(&engine.DeleteObject{Ref: ref, Propagation: policy})
		if err != nil || b[1] != version {
			t.Errorf("DeleteObject %q: body version %d (%v), want %d", policy, b[1], err, version)
		}
		cmd, err := engine.NewCodec().Decode(b)
		if err != nil || cmd.(*engine.DeleteObject).Propagation != policy {
			t.Errorf("DeleteObject %q decoded %+v, %v", policy, cmd, err)
		}
	}
}
