package kubeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"

	"github.com/rackboot/rackboot/engine"
)

// The deletion conditions of a Terminating Namespace (deletionConditions)
// are written into its stored status, as kube's namespace controller
// writes them, each time they change (an object of the namespace gone, a
// finalizer removed), so a watch on namespaces sees them change; a read
// still computes them, so a replica behind the leader serves them fresh.

// RunNamespaceConditions writes the deletion conditions of each
// Terminating Namespace through store (the leader's, fenced), once and
// then after every change in such a namespace, until ctx ends (log nil:
// no log).
func (h *Handler) RunNamespaceConditions(ctx context.Context, store engine.Store, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for ctx.Err() == nil {
		sub := store.Subscribe(ctx)
		h.syncNamespaces(ctx, store, log, nil)
		for ch := range sub {
			chs := append([]engine.Change{ch}, engine.Queued(sub)...)
			h.syncNamespaces(ctx, store, log, chs)
		}
	}
	return ctx.Err()
}

// syncNamespaces writes the conditions of the Terminating namespaces chs
// touched (nil, or a replaced model: all of them).
func (h *Handler) syncNamespaces(ctx context.Context, store engine.Store, log *slog.Logger, chs []engine.Change) {
	names := map[string]bool{}
	all := chs == nil
	for _, ch := range chs {
		switch {
		case ch.Kind == engine.KindAll:
			all = true
		case ch.Kind != engine.KindObject || ch.Object == nil:
		case ch.Object.Namespace != "":
			names[ch.Object.Namespace] = true
		case ch.Object.Group == "" && ch.Object.Kind == "Namespace":
			names[ch.Object.Name] = true
		}
	}
	var terminating []engine.Object
	store.Read(func(m *engine.Model) {
		for o := range m.Objects("", "Namespace", "") {
			if o.Deleting() && (all || names[o.Name]) {
				terminating = append(terminating, o)
			}
		}
	})
	for _, o := range terminating {
		if err := h.writeConditions(ctx, store, o); err != nil && ctx.Err() == nil &&
			!errors.Is(err, engine.ErrNotFound) && !errors.Is(err, engine.ErrConflict) {
			// gone or changed meanwhile: its change is looked at next
			log.Warn("namespace deletion conditions not written", "namespace", o.Name, "err", err)
		}
	}
}

// writeConditions writes Namespace o's deletion conditions into its body
// if they differ from the stored ones.
func (h *Handler) writeConditions(ctx context.Context, store engine.Store, o engine.Object) error {
	body, err := decodeObject(o.Body)
	if err != nil {
		return err
	}
	st, _ := body["status"].(map[string]any)
	if st == nil {
		st = map[string]any{}
	}
	stored, err := json.Marshal(st["conditions"])
	if err != nil {
		return err
	}
	next := h.namespaceStatus(o, maps.Clone(st))["conditions"]
	if b, err := json.Marshal(next); err == nil && bytes.Equal(b, stored) {
		return nil
	}
	st["conditions"] = next
	delete(st, "phase") // the server's, computed when read
	body["status"] = st
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	o.Body = b
	_, err = store.Apply(ctx, &engine.PutObject{Object: o, IfRevision: o.Revision})
	return err
}
