package kubeapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackboot/rackboot/engine"
)

// Events are watched by their own resourceVersion: the domain event's
// sequence number (what an Event's metadata.resourceVersion and an Event
// list's are), since they are mapped from the kept domain events and not
// stored as objects. A watch sends an ADDED event for each new domain
// event about an object of the selection, and 410 Gone when the events
// after its resourceVersion are no longer kept.

// watchEvents serves ?watch=true on the Event resource.
func (h *Handler) watchEvents(w http.ResponseWriter, r *http.Request, req *request) error {
	sel, err := parseSelectors(req, r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	after, ok := revision(q.Get("resourceVersion"))
	if !ok {
		return errBadRequest("invalid resourceVersion %q", q.Get("resourceVersion"))
	}
	limit := maxWatch
	if n, err := strconv.Atoi(q.Get("timeoutSeconds")); err == nil && n > 0 && time.Duration(n)*time.Second < limit {
		limit = time.Duration(n) * time.Second
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	ctx := r.Context()
	changes := h.opts.Store.Subscribe(ctx) // before the read: no event is missed
	var evs []engine.Object
	var first, last uint64
	h.opts.Store.Read(func(m *engine.Model) {
		first, last = eventSeqs(m)
		evs = domainEvents(m, req.ns, after)
	})
	st := &stream{h: h, w: w, r: r, req: req, sel: sel}
	startStream(w)
	if after > 0 && after+1 < first {
		s := newStatus(http.StatusGone, metav1.StatusReasonExpired, fmt.Sprintf("too old resource version: %d (%d)", after, last), nil)
		return writeEvent(w, "ERROR", s.status)
	}
	after = max(after, last)
	for {
		for _, o := range evs {
			if err := st.sendEvent(o); err != nil {
				return err
			}
		}
		flush(w)
		if !waitEventChange(ctx, changes, timer.C) {
			return nil
		}
		h.opts.Store.Read(func(m *engine.Model) {
			evs = domainEvents(m, req.ns, after)
			_, last = eventSeqs(m)
		})
		after = max(after, last)
	}
}

// waitEventChange waits for a change that appended domain events (or
// replaced the model); false when the watch ends: its time is up, the
// client left or the feed dropped it (the client watches again).
func waitEventChange(ctx context.Context, changes <-chan engine.Change, timeout <-chan time.Time) bool {
	for {
		select {
		case ch, ok := <-changes:
			if !ok {
				return false
			}
			if ch.Kind == engine.KindEvent || ch.Kind == engine.KindAll {
				return true
			}
		case <-timeout:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// sendEvent sends an Event the selection selects as ADDED.
func (s *stream) sendEvent(o engine.Object) error {
	view, err := s.h.render(s.req.res, o)
	if err != nil {
		return err
	}
	if !s.sel.matchesEvent(o, view) {
		return nil
	}
	return s.send(added, o)
}

// eventSeqs are the sequence numbers of the oldest and newest kept domain
// events (0, 0: none).
func eventSeqs(m *engine.Model) (first, last uint64) {
	for e := range m.Events(0) {
		if first == 0 {
			first = e.Seq
		}
		last = e.Seq
	}
	return first, last
}
