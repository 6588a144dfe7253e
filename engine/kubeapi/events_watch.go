package kubeapi

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
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
// after its resourceVersion are no longer kept. A domain event whose
// object does not exist yet (a host registers before the controller
// makes its Agent) is sent when the object appears, if that is within
// the latest pendingEvents events. Bookmarks and sendInitialEvents are
// those of the other kinds' watches (watchlist.go), at Event sequence
// numbers: a BOOKMARK every bookmarkEvery and one as the watch ends at its
// timeoutSeconds; sendInitialEvents=true sends every kept Event as ADDED
// then the initial-events-end BOOKMARK, sendInitialEvents=false none.

// pendingEvents bounds how far back a watch looks for events whose object
// appeared since.
const pendingEvents = 256

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
	opts, err := parseWatchOptions(r)
	if err != nil {
		return err
	}
	limit := maxWatch
	if n, err := strconv.Atoi(q.Get("timeoutSeconds")); err == nil && n > 0 && time.Duration(n)*time.Second < limit {
		limit = time.Duration(n) * time.Second
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	ctx := r.Context()
	changes := h.opts.Store.Subscribe(ctx) // before the read: no event is missed
	var first, last uint64
	h.opts.Store.Read(func(m *engine.Model) {
		switch {
		case opts.initial == "true":
			after = 0 // every kept Event: a state no older than resourceVersion
		case opts.initial == "false" && after == 0:
			after = lastEventSeq(m, 0) // no initial events
		}
		if first = firstEventSeq(m); after > 0 && after+1 < first {
			last = lastEventSeq(m, 0)
		}
	})
	st := &stream{h: h, w: w, r: r, req: req, sel: sel}
	startStream(w)
	if after > 0 && after+1 < first {
		s := newStatus(http.StatusGone, metav1.StatusReasonExpired, fmt.Sprintf("too old resource version: %d (%d)", after, last), nil)
		return writeEvent(w, "ERROR", s.status)
	}
	var tick <-chan time.Time
	if opts.bookmarks {
		t := time.NewTicker(bookmarkEvery)
		defer t.Stop()
		tick = t.C
	}
	initialEnd := opts.initial == "true"
	var pending []uint64
	for {
		var evs []engine.Object
		h.opts.Store.Read(func(m *engine.Model) { evs, pending, after = newEvents(m, req.ns, after, pending) })
		for _, o := range evs {
			if err := st.sendEvent(o); err != nil {
				return err
			}
		}
		if initialEnd {
			if err := st.bookmark(after, true); err != nil {
				return err
			}
			initialEnd = false
		}
		flush(w)
		switch waitEventChange(ctx, changes, timer.C, tick, len(pending) > 0) {
		case wokeTick:
			if err := st.bookmark(after, false); err != nil {
				return err
			}
		case wokeTimeout:
			if opts.bookmarks {
				_ = st.bookmark(after, false)
			}
			return nil
		case wokeEnd:
			return nil
		}
	}
}

// What an Event watch woke for.
const (
	wokeChange  = iota // domain events appended (or objects changed)
	wokeTick           // time for a bookmark
	wokeTimeout        // the watch's time is up
	wokeEnd            // the client left or the feed dropped the watch
)

// newEvents maps the domain events after sequence number after, and those
// still pending (their object missing), in sequence order; it returns the
// events mapped, those still pending within the latest pendingEvents, and
// the newest sequence number looked at.
func newEvents(m *engine.Model, ns string, after uint64, pending []uint64) ([]engine.Object, []uint64, uint64) {
	mapEvent := eventMapper(m, ns)
	var out []engine.Object
	var missing []uint64
	for _, seq := range pending {
		for e := range m.Events(seq - 1) {
			if e.Seq == seq { // else no longer kept
				if o, ok := mapEvent(e); ok {
					out = append(out, o)
				} else {
					missing = append(missing, seq)
				}
			}
			break
		}
	}
	for e := range m.Events(after) {
		if o, ok := mapEvent(e); ok {
			out = append(out, o)
		} else {
			missing = append(missing, e.Seq)
		}
		after = e.Seq
	}
	still := slices.DeleteFunc(missing, func(seq uint64) bool { return seq+pendingEvents <= after })
	slices.SortFunc(out, func(a, b engine.Object) int { return cmp.Compare(a.Revision, b.Revision) })
	return out, still, after
}

// waitEventChange waits for a change that appended domain events (or
// replaced the model; with objects pending, any object change), a
// bookmark's tick, or the watch's end: its time is up, the client left or
// the feed dropped it (the client watches again).
func waitEventChange(ctx context.Context, changes <-chan engine.Change, timeout, tick <-chan time.Time, objects bool) int {
	for {
		select {
		case ch, ok := <-changes:
			if !ok {
				return wokeEnd
			}
			if ch.Kind == engine.KindEvent || ch.Kind == engine.KindAll || objects && ch.Kind == engine.KindObject {
				return wokeChange
			}
		case <-tick:
			return wokeTick
		case <-timeout:
			return wokeTimeout
		case <-ctx.Done():
			return wokeEnd
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

// firstEventSeq is the sequence number of the oldest kept domain event
// (0: none).
func firstEventSeq(m *engine.Model) uint64 {
	for e := range m.Events(0) {
		return e.Seq
	}
	return 0
}

// lastEventSeq is the sequence number of the newest domain event, from
// (the newest known) if there is none after it.
func lastEventSeq(m *engine.Model, from uint64) uint64 {
	for e := range m.Events(from) {
		from = e.Seq
	}
	return from
}
