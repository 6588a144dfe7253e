package kubeapi

import (
	"context"
	"slices"

	"github.com/rackboot/rackboot/engine"
)

// at returns the objects of group and kind with a key from start on as
// they were at index rv, in key order: the cache's current objects with
// its changes after rv undone. gone when changes after rv have left the
// window (or the cache was reloaded since). It first waits until the cache
// has followed every object change up to rv.
func (c *watchCache) at(ctx context.Context, rv uint64, group, kind, start string) (objs []engine.Object, gone bool, err error) {
	var target uint64
	c.store.Read(func(m *engine.Model) { target = min(rv, m.ObjectIndex()) })
	for {
		objs, gone, wait, ok := c.atLocked(rv, target, group, kind, start)
		if ok {
			return objs, gone, nil
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
}

func (c *watchCache) atLocked(rv, target uint64, group, kind, start string) (objs []engine.Object, gone bool, wait <-chan struct{}, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	current := c.start
	if n := len(c.events); n > 0 {
		current = c.events[n-1].index
	}
	if !c.ready || current < target {
		return nil, false, c.notify, false
	}
	if rv < c.dropped {
		return nil, true, nil, true
	}
	// then: each object changed after rv as it was at rv (nil: absent),
	// the oldest change after rv last written.
	then := map[string]*engine.Object{}
	for i := len(c.events) - 1; i >= 0 && c.events[i].index > rv; i-- {
		e := c.events[i]
		if e.obj.Group == group && e.obj.Kind == kind {
			then[e.obj.Key()] = e.prev // nil for ADDED
		}
	}
	byKey := map[string]engine.Object{}
	for k, o := range c.latest {
		if _, changed := then[k]; !changed && k >= start && o.Group == group && o.Kind == kind {
			byKey[k] = o
		}
	}
	for k, o := range then {
		if o != nil && k >= start {
			byKey[k] = *o
		}
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	objs = make([]engine.Object, len(keys))
	for i, k := range keys {
		objs[i] = byKey[k]
	}
	return objs, false, nil, true
}
