package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/models"
)

// maxWatchSeconds bounds ?timeout_seconds= of a watch.
const maxWatchSeconds = 24 * 60 * 60

// hostWatch is one watch stream's state: the revision of each host it
// last sent, so that it sends every state change once.
type hostWatch struct {
	s    *server
	ie   string
	w    http.ResponseWriter
	rc   *http.ResponseController
	enc  *json.Encoder
	sent map[string]uint64 // host id → Meta.Revision sent
}

// watchHosts streams the infra-env's hosts as newline-delimited JSON
// WatchEvents: every current host as ADDED, then each change, until the
// client goes away or timeout_seconds pass. A subscriber that falls
// behind the change feed (or a model restored from a snapshot) is brought
// up to date by listing again, sending only the differences.
func (s *server) watchHosts(w http.ResponseWriter, r *http.Request, ie string) error {
	ctx := r.Context()
	if v := r.URL.Query().Get("timeout_seconds"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxWatchSeconds {
			return badRequest("timeout_seconds %q is not a number of seconds from 1 to %d", hosts.Clip(v), maxWatchSeconds)
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(n)*time.Second)
		defer cancel()
	}
	hw := &hostWatch{s: s, ie: ie, w: w, rc: http.NewResponseController(w), enc: json.NewEncoder(w),
		sent: map[string]uint64{}}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	// Send the headers now: a watch of an infra-env without hosts has no
	// event to carry them, and a client waits for them before reading.
	if err := hw.rc.Flush(); err != nil {
		return nil // the client is gone
	}
	for ctx.Err() == nil {
		if err := hw.round(ctx); err != nil {
			return nil // the client is gone, or its time is up
		}
	}
	return nil
}

// round subscribes, lists and follows the changes until the feed needs a
// new list (it fell behind, or the model was restored).
func (hw *hostWatch) round(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changes := hw.s.store.Subscribe(ctx)
	seen, err := hw.resync()
	if err != nil {
		return err
	}
	return hw.follow(ctx, changes, seen)
}

// follow sends the host changes after index seen until the feed closes
// (the context ended, or the subscriber fell behind).
func (hw *hostWatch) follow(ctx context.Context, changes <-chan engine.Change, seen uint64) error {
	for c := range changes {
		if c.Index <= seen {
			continue
		}
		switch c.Kind {
		case engine.KindAll:
			return nil // re-list
		case engine.KindHost:
			if err := hw.host(c.ID); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// resync sends what changed since the stream last looked at every host
// (everything, the first time) and returns the model index it read.
func (hw *hostWatch) resync() (uint64, error) {
	var (
		index uint64
		evs   []models.WatchEvent
	)
	hw.s.store.Read(func(m *engine.Model) {
		index = m.Index()
		present := map[string]bool{}
		for h := range m.HostsOfInfraEnv(hw.ie) {
			present[h.ID] = true
			if ev, ok := hw.event(h); ok {
				evs = append(evs, ev)
			}
		}
		for id := range hw.sent {
			if !present[id] {
				evs = append(evs, hw.deleted(id))
			}
		}
	})
	return index, hw.send(evs...)
}

// host sends the current state of host id, if it is of this infra-env and
// changed since it was last sent.
func (hw *hostWatch) host(id string) error {
	var (
		ev models.WatchEvent
		ok bool
	)
	hw.s.store.Read(func(m *engine.Model) {
		h, found := m.Host(id)
		switch {
		case found && h.InfraEnvID == hw.ie:
			ev, ok = hw.event(h)
		case !found:
			if _, was := hw.sent[id]; was {
				ev, ok = hw.deleted(id), true
			}
		}
	})
	if !ok {
		return nil
	}
	return hw.send(ev)
}

// event is h's ADDED or MODIFIED event; false when h's revision was sent.
func (hw *hostWatch) event(h engine.Host) (models.WatchEvent, bool) {
	rev, was := hw.sent[h.ID]
	if was && rev == h.Revision {
		return models.WatchEvent{}, false
	}
	hw.sent[h.ID] = h.Revision
	typ := models.WatchModified
	if !was {
		typ = models.WatchAdded
	}
	return models.WatchEvent{Type: typ, Object: hw.s.hostOut(h)}, true
}

func (hw *hostWatch) deleted(id string) models.WatchEvent {
	delete(hw.sent, id)
	out := &models.APIHost{}
	out.ID, out.InfraEnvID, out.Kind, out.Href = id, hw.ie, models.HostKindHost, hostHref(hw.ie, id)
	return models.WatchEvent{Type: models.WatchDeleted, Object: out}
}

// send writes events, one JSON document a line, and flushes them.
func (hw *hostWatch) send(evs ...models.WatchEvent) error {
	if len(evs) == 0 {
		return nil
	}
	for _, ev := range evs {
		if err := hw.enc.Encode(ev); err != nil {
			return fmt.Errorf("watch: %w", err)
		}
	}
	if err := hw.rc.Flush(); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	return nil
}
