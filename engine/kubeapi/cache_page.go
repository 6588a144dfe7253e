package kubeapi

import (
	"context"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/engine"
)

// A list page is read from the watch cache in O(page): the cache keeps
// the keys of each kind in order (order), a page seeks to its start key
// and reads until it has limit objects. A page at an older
// resourceVersion undoes only the changes made after it; a page at the
// cache's current index reads the current objects as they are.

// pageQuery is one page of a list of one kind.
type pageQuery struct {
	group, kind, ns string
	start           string // the first key to read ("" from the first)
	limit           int64  // at most this many objects; 0: all
	match           func(engine.Object) bool
	count           bool // count the objects after the page (remaining)
}

// pageResult is a page: its objects, whether a matching object follows,
// and (when counted) how many objects of the kind follow it.
type pageResult struct {
	objs      []engine.Object
	more      bool
	remaining int64
}

// kindKey is the prefix of the keys of group and kind (ObjectRef.Key).
func kindKey(group, kind string) string { return group + "/" + kind + "/" }

// insertKey and removeKey keep keys sorted.
func insertKey(keys []string, k string) []string {
	i, found := slices.BinarySearch(keys, k)
	if found {
		return keys
	}
	return slices.Insert(keys, i, k)
}

func removeKey(keys []string, k string) []string {
	i, found := slices.BinarySearch(keys, k)
	if !found {
		return keys
	}
	return slices.Delete(keys, i, i+1)
}

// page returns the page q asks for as the objects were at index rv,
// waiting first until the cache has followed every object change up to
// rv; gone when changes after rv have left the window (or the cache was
// reloaded since).
func (c *watchCache) page(ctx context.Context, rv uint64, q pageQuery) (res pageResult, gone bool, err error) {
	var target uint64
	c.store.Read(func(m *engine.Model) { target = min(rv, m.ObjectIndex()) })
	for {
		res, gone, wait, ok := c.pageLocked(rv, target, q)
		if ok {
			return res, gone, nil
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return pageResult{}, false, ctx.Err()
		}
	}
}

func (c *watchCache) pageLocked(rv, target uint64, q pageQuery) (res pageResult, gone bool, wait <-chan struct{}, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	current := c.start
	if n := len(c.events); n > 0 {
		current = c.events[n-1].index
	}
	if !c.ready || current < target {
		return res, false, c.notify, false
	}
	if rv < c.dropped {
		return res, true, nil, true
	}
	prefix := kindKey(q.group, q.kind)
	if q.ns != "" {
		prefix += q.ns + "/"
	}
	from := max(prefix, q.start)
	end := prefix + "\xff" // keys are printable: every key of prefix sorts before
	then, gone2 := c.changedAfter(rv, q.group, q.kind, from, end)
	keys := c.order[kindKey(q.group, q.kind)]
	lo, _ := slices.BinarySearch(keys, from)
	hi, _ := slices.BinarySearch(keys, end)
	keys = keys[lo:hi]
	if q.count {
		res.remaining = int64(len(keys))
		for k, o := range then {
			_, now := c.latest[k]
			res.remaining += b2i(o != nil) - b2i(now)
		}
	}
	c.readPage(keys, then, gone2, q, &res)
	if q.count {
		res.remaining -= int64(len(res.objs))
	}
	return res, false, nil, true
}

// changedAfter returns each object of group and kind with a key in
// [from, end) changed after rv as it was at rv (nil: absent), and the
// sorted keys of those absent now (deleted since rv).
func (c *watchCache) changedAfter(rv uint64, group, kind, from, end string) (map[string]*engine.Object, []string) {
	var then map[string]*engine.Object
	for i := len(c.events) - 1; i >= 0 && c.events[i].index > rv; i-- {
		e := c.events[i]
		if e.obj.Group != group || e.obj.Kind != kind {
			continue
		}
		if k := e.obj.Key(); k >= from && k < end {
			if then == nil {
				then = map[string]*engine.Object{}
			}
			then[k] = e.prev // the oldest change after rv is written last
		}
	}
	var deleted []string
	for k, o := range then {
		if _, now := c.latest[k]; !now && o != nil {
			deleted = append(deleted, k)
		}
	}
	slices.Sort(deleted)
	return then, deleted
}

// readPage merges the current keys with those deleted since rv, in
// order, and appends the objects q matches as they were at rv until the
// page is full; more is whether another matching object follows.
func (c *watchCache) readPage(keys []string, then map[string]*engine.Object, deleted []string, q pageQuery, res *pageResult) {
	i, j := 0, 0
	for i < len(keys) || j < len(deleted) {
		var k string
		if j >= len(deleted) || (i < len(keys) && strings.Compare(keys[i], deleted[j]) < 0) {
			k, i = keys[i], i+1
		} else {
			k, j = deleted[j], j+1
		}
		o, ok := c.latest[k]
		if prev, changed := then[k]; changed {
			if prev == nil {
				continue
			}
			o, ok = *prev, true
		}
		if !ok || (q.match != nil && !q.match(o)) {
			continue
		}
		if q.limit > 0 && int64(len(res.objs)) == q.limit {
			res.more = true
			return
		}
		res.objs = append(res.objs, o)
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
