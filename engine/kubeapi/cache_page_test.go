package kubeapi

import (
	"fmt"
	"testing"

	"github.com/rackboot/rackboot/engine"
)

const (
	testGroup = "agent-install.openshift.io"
	testKind  = "Agent"
)

// cacheOf is a loaded watch cache of n Agents a0000… in namespace ns at
// index 1, then each of changes applied at index 2, 3, ….
func cacheOf(n int, changes ...engine.Change) *watchCache {
	c := &watchCache{size: 10000, notify: make(chan struct{}), ready: true, start: 1, dropped: 1,
		latest: map[string]engine.Object{}, order: map[string][]string{}}
	var keys []string
	for i := range n {
		o := agentObject(fmt.Sprintf("a%04d", i))
		c.latest[o.Key()] = o
		keys = append(keys, o.Key())
	}
	c.order[kindKey(testGroup, testKind)] = keys
	for i, ch := range changes {
		ch.Index, ch.Kind = uint64(i+2), engine.KindObject
		ch.ID = ch.Object.Key()
		c.apply(ch)
	}
	return c
}

func agentObject(name string) engine.Object {
	return engine.Object{ObjectRef: engine.ObjectRef{Group: testGroup, Kind: testKind, Namespace: "ns", Name: name}, Meta: engine.Meta{Revision: 1}}
}

func names(objs []engine.Object) string {
	s := ""
	for _, o := range objs {
		s += o.Name + ","
	}
	return s
}

// A page of a long list reads only its page: a page of 10 of 10,000
// Agents at the current index, or at an older one with a change since,
// allocates a few times per object of the page, not per object of the
// kind (each page used to copy and sort all 10,000).
func TestPageReadsOnlyItsPage(t *testing.T) {
	o := agentObject("a5000")
	o.Revision = 2
	c := cacheOf(10000, engine.Change{Object: &o})
	q := pageQuery{group: testGroup, kind: testKind, ns: "ns", start: kindKey(testGroup, testKind) + "ns/a4995\x00", limit: 10, count: true}
	for _, rv := range []uint64{2, 1} {
		var res pageResult
		allocs := testing.AllocsPerRun(10, func() { res, _, _, _ = c.pageLocked(rv, 0, q) })
		if got := names(res.objs); got != "a4996,a4997,a4998,a4999,a5000,a5001,a5002,a5003,a5004,a5005," || !res.more || res.remaining != 10000-4996-10 {
			t.Fatalf("page at %d: %s more %v remaining %d", rv, got, res.more, res.remaining)
		}
		if allocs > 40 {
			t.Errorf("a page of 10 at %d allocates %.0f times", rv, allocs)
		}
	}
}

// A page at an older index shows the objects as they were then: one
// added since is not in it, one deleted since is, and the count of those
// after the page is the count then.
func TestPageAtOlderIndex(t *testing.T) {
	added, gone := agentObject("a0001x"), agentObject("a0002")
	c := cacheOf(5, engine.Change{Object: &added}, engine.Change{Object: &gone, Deleted: true})
	q := pageQuery{group: testGroup, kind: testKind, limit: 3, count: true}
	for _, tc := range []struct {
		rv    uint64
		want  string
		count int64
	}{{1, "a0000,a0001,a0002,", 2}, {2, "a0000,a0001,a0001x,", 3}, {3, "a0000,a0001,a0001x,", 2}} {
		res, gone, _, ok := c.pageLocked(tc.rv, 0, q)
		if !ok || gone || names(res.objs) != tc.want || !res.more || res.remaining != tc.count {
			t.Errorf("at %d: %s more %v remaining %d, want %s remaining %d", tc.rv, names(res.objs), res.more, res.remaining, tc.want, tc.count)
		}
	}
}

// A watcher's next events are the cache's own, not a copy: 100 watchers
// lagging by thousands of changes held 100 copies of them.
func TestNextSharesEvents(t *testing.T) {
	var changes []engine.Change
	for i := range 1000 {
		o := agentObject(fmt.Sprintf("a%04d", i%10))
		o.Revision = uint64(i + 2)
		changes = append(changes, engine.Change{Object: &o})
	}
	c := cacheOf(10, changes...)
	at, _, _, _, _ := c.since(1)
	var evs []event
	allocs := testing.AllocsPerRun(10, func() { evs, _, _, _ = c.next(at) })
	if len(evs) != 1000 || allocs != 0 {
		t.Errorf("%d events, %.0f allocations", len(evs), allocs)
	}
}
