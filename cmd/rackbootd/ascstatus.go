package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/rackboot/rackboot/engine"
)

// The AgentServiceConfig's status is upstream's: one ReconcileCompleted
// condition, True (ReconcileSucceeded) when every osImages entry became
// an image set, else False with the reason: ConfigFailure for a spec that
// does not parse (nothing changed), OSImagesFailure naming the entries
// left out and why. The leader writes what it found; the other nodes
// resolve the same entries for themselves and only log.

// ascCondition is the ReconcileCompleted condition of a sync of the
// osImages: parseErr when the spec did not parse, else the entries left
// out (name: reason).
func ascCondition(parseErr error, leftOut []string) map[string]any {
	c := map[string]any{"type": "ReconcileCompleted", "status": "True", "reason": "ReconcileSucceeded",
		"message": "AgentServiceConfig reconcile completed without error."}
	switch {
	case parseErr != nil:
		c["status"], c["reason"], c["message"] = "False", "ConfigFailure", "spec.osImages: "+parseErr.Error()
	case len(leftOut) > 0:
		c["status"], c["reason"], c["message"] = "False", "OSImagesFailure", "osImages entries left out: "+strings.Join(leftOut, "; ")
	}
	return c
}

// writeASCStatus sets cond as the AgentServiceConfig's status when this
// node leads (the lastTransitionTime kept while the status stays); an
// object changed meanwhile is read again.
func (d *daemon) writeASCStatus(ctx context.Context, cond map[string]any) {
	if !d.store.Leader() {
		return
	}
	store := engine.Fence(d.store)
	ref := engine.ObjectRef{Group: ascGroup, Kind: ascKind, Name: ascName}
	for range 5 {
		var obj engine.Object
		var ok bool
		store.Read(func(m *engine.Model) { obj, ok = m.Object(ref.Key()) })
		if !ok {
			return
		}
		body, changed := ascBody(obj, cond, time.Now())
		if !changed {
			return
		}
		obj.Body = body
		_, err := store.Apply(ctx, &engine.PutObject{Object: obj, IfRevision: obj.Revision})
		if !errors.Is(err, engine.ErrConflict) {
			if err != nil {
				d.log.Warn("AgentServiceConfig: status not written", "err", err.Error())
			}
			return
		}
	}
}

// ascBody is obj's body with cond as its status's only condition;
// changed is false when it says so already.
func ascBody(obj engine.Object, cond map[string]any, now time.Time) (json.RawMessage, bool) {
	var body map[string]any
	if json.Unmarshal(obj.Body, &body) != nil {
		return nil, false
	}
	var old map[string]any
	if st, _ := body["status"].(map[string]any); st != nil {
		if cs, _ := st["conditions"].([]any); len(cs) == 1 {
			old, _ = cs[0].(map[string]any)
		}
	}
	cond["lastTransitionTime"] = now.UTC().Format(time.RFC3339)
	if old != nil && old["status"] == cond["status"] {
		cond["lastTransitionTime"] = old["lastTransitionTime"]
		if old["reason"] == cond["reason"] && old["message"] == cond["message"] {
			return nil, false
		}
	}
	st := map[string]any{"conditions": []any{cond}}
	if obj.Generation > 0 {
		st["observedGeneration"] = obj.Generation
	}
	body["status"] = st
	b, err := json.Marshal(body)
	return b, err == nil
}
