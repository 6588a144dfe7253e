package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rackboot/rackboot/engine"
)

// The AgentServiceConfig's status is upstream's: one ReconcileCompleted
// condition, True (ReconcileSucceeded) when every osImages entry became
// an image set, else False with the reason: ConfigFailure for a spec that
// does not parse (nothing changed), OSImagesFailure naming the entries
// left out and why, whether the fetch left them out or the reload (no
// rackboot-agent for the architecture, a configuration file's image set of
// that name). Every node resolves the entries for itself; the leader
// writes the status when what it found changes, when the object changes,
// and as soon as it leads.

// ascReporter keeps what the status says and writes it on the leader.
type ascReporter struct {
	store engine.Store
	log   *slog.Logger

	mu        sync.Mutex // held while the status is written: one at a time
	fetched   bool       // a sync of the osImages ran
	parseErr  error      // the spec did not parse
	fetchOut  []string   // entries the fetch left out (name: reason)
	reloadOut []string   // entries the last reload left out
	due       bool       // a reload of new sets is due: reloadOut is stale
}

func newASCReporter(store engine.Store, log *slog.Logger, reloadOut []string) *ascReporter {
	return &ascReporter{store: store, log: log, reloadOut: reloadOut}
}

// run writes the status each time this node becomes the leader, until
// ctx ends.
func (r *ascReporter) run(ctx context.Context) {
	engine.WhileLeader(ctx, r.store, r.publish)
}

// synced records a sync of the osImages (reloadDue: it changed the sets,
// and the reload will tell which it left out) and writes the status.
func (r *ascReporter) synced(ctx context.Context, parseErr error, fetchOut []string, reloadDue bool) {
	r.mu.Lock()
	r.fetched, r.parseErr = true, parseErr
	if parseErr == nil {
		r.fetchOut, r.due = fetchOut, reloadDue
	}
	r.mu.Unlock()
	r.publish(ctx)
}

// reloaded records the entries a reload left out (ok: it was applied)
// and writes the status.
func (r *ascReporter) reloaded(ctx context.Context, ok bool, reloadOut []string) {
	r.mu.Lock()
	if ok {
		r.reloadOut = reloadOut
	}
	r.due = false
	r.mu.Unlock()
	r.publish(ctx)
}

// publish writes the status when this node leads and has something to
// say.
func (r *ascReporter) publish(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.fetched || r.due || !r.store.Leader() {
		return
	}
	writeASCStatus(ctx, r.store, r.log, ascCondition(r.parseErr, slices.Concat(r.fetchOut, r.reloadOut)))
}

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

// writeASCStatus sets cond as the AgentServiceConfig's status, fenced to
// the term this node leads in (the lastTransitionTime kept while the
// status stays); an object changed meanwhile is read again.
func writeASCStatus(ctx context.Context, st engine.Store, log *slog.Logger, cond map[string]any) {
	store := engine.Fence(st)
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
				log.Warn("AgentServiceConfig: status not written", "err", err.Error())
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
