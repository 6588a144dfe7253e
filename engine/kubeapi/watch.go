package kubeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackboot/rackboot/engine"
)

// maxWatch bounds a watch without timeoutSeconds (the API server's
// default is 30 to 60 minutes; the client watches again).
const maxWatch = 30 * time.Minute

// watch streams the changes of the request's kind as WatchEvents: with no
// resourceVersion (or "0"), an ADDED event for each current object first;
// with one, every change after it, or a 410 Gone ERROR event when the
// cache no longer holds them; bookmarks and sendInitialEvents as
// watchlist.go says.
func (h *Handler) watch(w http.ResponseWriter, r *http.Request, req *request) error {
	if isEvent(req.res) {
		return h.watchEvents(w, r, req)
	}
	sel, err := parseSelectors(req, r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	rv, ok := revision(q.Get("resourceVersion"))
	if !ok {
		return errBadRequest("invalid resourceVersion %q", q.Get("resourceVersion"))
	}
	opts, err := parseWatchOptions(r)
	if err != nil {
		return err
	}
	// fresh: the index the initial state must reach (sendInitialEvents).
	var fresh uint64
	if opts.initial == "true" {
		fresh = h.freshIndex(r, rv)
	}
	limit := maxWatch
	if s := q.Get("timeoutSeconds"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 && time.Duration(n)*time.Second < limit {
			limit = time.Duration(n) * time.Second
		}
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	ctx := r.Context()

	var initial []engine.Object
	var at cursor
	snapshot := rv == 0 || opts.initial == "true"
	for {
		var wait <-chan struct{}
		var ready, gone bool
		var current uint64
		if snapshot {
			var index uint64
			initial, index, at, wait, ready = h.cache.snapshot()
			if ready && index < fresh {
				ready = false // the cache has not reached the state asked for yet
			}
			if ready {
				rv = index
			}
		} else {
			at, gone, current, wait, ready = h.cache.since(rv)
		}
		if ready {
			if gone {
				s := newStatus(http.StatusGone, metav1.StatusReasonExpired,
					fmt.Sprintf("too old resource version: %d (%d)", rv, current), nil)
				startStream(w)
				return writeEvent(w, "ERROR", s.status)
			}
			break
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	st := &stream{h: h, w: w, r: r, req: req, sel: sel}
	startStream(w)
	if opts.initial == "false" {
		initial = nil
	}
	for _, o := range sortObjects(initial) {
		if o.Group == req.res.Group && o.Kind == req.res.Kind && sel.matches(o) {
			if err := st.send(added, o); err != nil {
				return err
			}
		}
	}
	if opts.initial == "true" {
		if err := st.bookmark(rv, true); err != nil {
			return err
		}
	}
	flush(w)
	// seen: every change up to it has been sent (what a bookmark says).
	seen := rv
	var tick <-chan time.Time
	if opts.bookmarks {
		t := time.NewTicker(bookmarkEvery)
		defer t.Stop()
		tick = t.C
	}
	for {
		evs, next, wait, ok := h.cache.next(at)
		if !ok {
			return nil // fell out of the window: the client watches again
		}
		at = next
		for _, e := range evs {
			seen = max(seen, e.index)
			if e.index <= rv {
				continue // already in what the client listed
			}
			if err := st.event(e); err != nil {
				return err
			}
		}
		flush(w)
		select {
		case <-wait:
		case <-tick:
			if err := st.bookmark(seen, false); err != nil {
				return err
			}
		case <-timer.C:
			if opts.bookmarks {
				_ = st.bookmark(seen, false)
			}
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// stream writes one watch's events.
type stream struct {
	h   *Handler
	w   http.ResponseWriter
	r   *http.Request
	req *request
	sel selector
}

// event sends e as the watch sees it: an object entering the selection is
// ADDED, one leaving it DELETED.
func (s *stream) event(e event) error {
	if e.obj.Group != s.req.res.Group || e.obj.Kind != s.req.res.Kind {
		return nil
	}
	now := e.typ != deleted && s.sel.matches(e.obj)
	before := e.prev != nil && s.sel.matches(*e.prev)
	switch {
	case e.typ == deleted && before:
		return s.send(deleted, e.obj)
	case now && before:
		return s.send(modified, e.obj)
	case now:
		return s.send(added, e.obj)
	case before:
		gone := *e.prev
		gone.Revision = e.index
		return s.send(deleted, gone)
	}
	return nil
}

func (s *stream) send(typ string, o engine.Object) error {
	res := s.req.res
	if !wantsTable(s.r) && !(res.Group == "" && res.Kind == "Secret") {
		line, err := s.h.enc.line(res, typ, o, func() ([]byte, error) {
			view, err := s.h.renderRaw(res, o)
			if err != nil {
				return nil, err
			}
			return eventLine(typ, view)
		})
		if err != nil {
			return err
		}
		_, err = s.w.Write(line)
		return err
	}
	view, err := s.h.render(res, o)
	if err != nil {
		return err
	}
	var obj any = view
	if wantsTable(s.r) {
		obj = s.h.table(res, s.r, []engine.Object{o}, []map[string]any{view}, o.Revision)
	}
	return writeEvent(s.w, typ, obj)
}

func startStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush(w)
}

func writeEvent(w http.ResponseWriter, typ string, obj any) error {
	b, err := eventLine(typ, obj)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// eventLine is one watch event as its JSON line.
func eventLine(typ string, obj any) ([]byte, error) {
	b, err := json.Marshal(map[string]any{"type": typ, "object": obj})
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func flush(w http.ResponseWriter) {
	_ = http.NewResponseController(w).Flush()
}

func sortObjects(objs []engine.Object) []engine.Object {
	slicesSortFunc(objs)
	return objs
}
