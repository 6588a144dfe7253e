package kubeapi

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/rackboot/rackboot/engine"
)

// Watch event types.
const (
	added    = "ADDED"
	modified = "MODIFIED"
	deleted  = "DELETED"
)

// event is one change of one object, in log order.
type event struct {
	index uint64 // raft index of the change
	typ   string
	obj   engine.Object  // the object after (DELETED: before, at index)
	prev  *engine.Object // the object before (nil for ADDED)
}

// watchCache mirrors the objects and keeps the latest changes, fed from
// the store's change feed (each object change carries the object as that
// change left it, so a short-lived object is still ADDED then DELETED), so that a watch can start from a list's
// resourceVersion (or resume from its last event's) without a gap, and
// many watches cost one subscription.
type watchCache struct {
	store engine.Store
	kinds [][2]string // group, kind of every served resource
	size  int

	mu      sync.Mutex
	ready   bool
	epoch   uint64 // bumped when the cache reloads: watches of an older one end
	start   uint64 // the model index the mirror was loaded at
	dropped uint64 // the index of the newest event dropped from the window
	first   uint64 // sequence number of events[0]
	events  []event
	latest  map[string]engine.Object
	order   map[string][]string // the keys of latest by kindKey, sorted
	notify  chan struct{}       // closed (and replaced) on every change of the above
}

func newWatchCache(store engine.Store, res []*Resource, size int) *watchCache {
	c := &watchCache{store: store, size: size, notify: make(chan struct{})}
	for _, r := range res {
		c.kinds = append(c.kinds, [2]string{r.Group, r.Kind})
	}
	return c
}

// run keeps the cache current until ctx is done, reloading it whenever
// the feed is lost (this node fell behind) or the model was replaced.
func (c *watchCache) run(ctx context.Context) {
	for ctx.Err() == nil {
		sub := c.store.Subscribe(ctx)
		c.load()
		c.follow(sub)
	}
}

func (c *watchCache) load() {
	latest := map[string]engine.Object{}
	order := map[string][]string{}
	var index uint64
	c.store.Read(func(m *engine.Model) {
		index = m.Index()
		for _, k := range c.kinds {
			var keys []string
			for o := range m.Objects(k[0], k[1], "") { // in key order
				latest[o.Key()] = o
				keys = append(keys, o.Key())
			}
			order[kindKey(k[0], k[1])] = keys
		}
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ready = true
	c.epoch++
	c.start, c.dropped = index, index
	c.first += uint64(len(c.events))
	c.events = nil
	c.latest = latest
	c.order = order
	c.wake()
}

// follow applies changes until the feed closes or the model is replaced.
func (c *watchCache) follow(sub <-chan engine.Change) {
	c.mu.Lock()
	start := c.start
	c.mu.Unlock()
	for ch := range sub {
		switch {
		case ch.Kind == engine.KindAll:
			return
		case ch.Kind != engine.KindObject || ch.Index <= start:
			continue
		}
		c.apply(ch)
	}
}

func (c *watchCache) apply(ch engine.Change) {
	if ch.Object == nil {
		return // not an object change of this rackboot's feed
	}
	o := *ch.Object
	c.mu.Lock()
	defer c.mu.Unlock()
	prev, had := c.latest[ch.ID]
	kk := kindKey(o.Group, o.Kind)
	switch {
	case ch.Deleted:
		o.Revision = ch.Index
		delete(c.latest, ch.ID)
		c.order[kk] = removeKey(c.order[kk], ch.ID)
		var before *engine.Object
		if had {
			before = &prev
		} else {
			before = ch.Object
		}
		c.append(event{index: ch.Index, typ: deleted, obj: o, prev: before})
	case had:
		c.latest[ch.ID] = o
		c.append(event{index: ch.Index, typ: modified, obj: o, prev: &prev})
	default:
		c.latest[ch.ID] = o
		c.order[kk] = insertKey(c.order[kk], ch.ID)
		c.append(event{index: ch.Index, typ: added, obj: o})
	}
}

func (c *watchCache) append(e event) {
	c.events = append(c.events, e)
	if n := len(c.events); n > 2*c.size {
		drop := n - c.size
		c.dropped = c.events[drop-1].index
		c.first += uint64(drop)
		c.events = append([]event(nil), c.events[drop:]...)
	}
	c.wake()
}

func (c *watchCache) wake() {
	close(c.notify)
	c.notify = make(chan struct{})
}

// cursor is a watch's position in the cache.
type cursor struct {
	epoch, seq uint64
}

// snapshot returns the current objects and the position after them, or
// ok false while the cache is loading (wait on the channel).
func (c *watchCache) snapshot() (objs []engine.Object, index uint64, at cursor, wait <-chan struct{}, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ready {
		return nil, 0, cursor{}, c.notify, false
	}
	for _, o := range c.latest {
		objs = append(objs, o)
	}
	index = c.start
	if n := len(c.events); n > 0 {
		index = c.events[n-1].index
	}
	return objs, index, cursor{c.epoch, c.first + uint64(len(c.events))}, c.notify, true
}

// since returns the position just after the events up to index rv; gone
// when events after rv have left the window (410 Gone). The current index
// is returned for the Gone message.
func (c *watchCache) since(rv uint64) (at cursor, gone bool, current uint64, wait <-chan struct{}, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ready {
		return cursor{}, false, 0, c.notify, false
	}
	current = c.start
	if n := len(c.events); n > 0 {
		current = c.events[n-1].index
	}
	if rv < c.dropped {
		return cursor{}, true, current, nil, true
	}
	i := 0
	for i < len(c.events) && c.events[i].index <= rv {
		i++
	}
	return cursor{c.epoch, c.first + uint64(i)}, false, current, nil, true
}

// next returns the events after at (read only), the new position, and a
// channel closed when more arrive; ok false when at is no longer in the window
// (the watch must end).
func (c *watchCache) next(at cursor) (evs []event, next cursor, wait <-chan struct{}, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if at.epoch != c.epoch || at.seq < c.first {
		return nil, at, nil, false
	}
	i := int(at.seq - c.first)
	// Shared, not copied: events are never changed in place (append
	// writes past the end, a trim makes a new array), so each of 100
	// watchers lagging by thousands of changes no longer holds its own
	// copy of them. The capacity is capped so that the caller cannot
	// append into the cache's array.
	n := len(c.events)
	evs = c.events[i:n:n]
	return evs, cursor{c.epoch, c.first + uint64(len(c.events))}, c.notify, true
}

func slicesSortFunc(objs []engine.Object) {
	slices.SortFunc(objs, func(a, b engine.Object) int { return strings.Compare(a.Key(), b.Key()) })
}
