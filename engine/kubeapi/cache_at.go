package kubeapi

import (
	"context"

	"github.com/rackboot/rackboot/engine"
)

// at returns the objects of group and kind as they were at index rv, in
// key order: the cache's current objects with its changes after rv
// undone. gone when changes after rv have left the window (or the cache
// was reloaded since). It first waits until the cache has followed every
// object change up to rv.
func (c *watchCache) at(ctx context.Context, rv uint64, group, kind string) (objs []engine.Object, gone bool, err error) {
	var target uint64
	c.store.Read(func(m *engine.Model) { target = min(rv, m.ObjectIndex()) })
	for {
		objs, gone, wait, ok := c.atLocked(rv, target, group, kind)
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

func (c *watchCache) atLocked(rv, target uint64, group, kind string) (objs []engine.Object, gone bool, wait <-chan struct{}, ok bool) {
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
	state := map[string]engine.Object{}
	for k, o := range c.latest {
		if o.Group == group && o.Kind == kind {
			state[k] = o
		}
	}
	for i := len(c.events) - 1; i >= 0 && c.events[i].index > rv; i-- {
		e := c.events[i]
		if e.obj.Group != group || e.obj.Kind != kind {
			continue
		}
		switch {
		case e.typ == added:
			delete(state, e.obj.Key())
		case e.prev != nil:
			state[e.obj.Key()] = *e.prev
		}
	}
	for _, o := range state {
		objs = append(objs, o)
	}
	slicesSortFunc(objs)
	return objs, false, nil, true
}
