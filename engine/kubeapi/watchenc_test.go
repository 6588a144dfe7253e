package kubeapi

import (
	"fmt"
	"github.com/rackboot/rackboot/engine/kubekinds"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rackboot/rackboot/engine"
)

// Many watchers of one change encode it once and all send the same line;
// another event type, revision or version is another line; the cache
// keeps only the latest encCacheSize changes.
func TestWatchersShareOneEncoding(t *testing.T) {
	c := newEncCache()
	agent := &Resource{Resource: kubekinds.Resource{Group: "agent-install.openshift.io", Version: "v1beta1", Kind: "Agent"}}
	o := engine.Object{ObjectRef: engine.ObjectRef{Group: agent.Group, Kind: "Agent", Namespace: "ns", Name: "a1"}}
	o.Revision = 7
	var encodes atomic.Int64
	enc := func(s string) func() ([]byte, error) {
		return func() ([]byte, error) { encodes.Add(1); return []byte(s), nil }
	}
	var wg sync.WaitGroup
	lines := make([]string, 100)
	for i := range lines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := c.line(agent, modified, o, enc("m7"))
			if err != nil {
				t.Error(err)
			}
			lines[i] = string(b)
		}()
	}
	wg.Wait()
	for _, l := range lines {
		if l != "m7" {
			t.Fatalf("a watcher sent %q, want the shared line", l)
		}
	}
	if n := encodes.Load(); n != 1 {
		t.Errorf("100 watchers of one change encoded it %d times, want once", n)
	}
	o8 := o
	o8.Revision = 8
	v2 := *agent
	v2.Version = "v2"
	for _, k := range []struct {
		res *Resource
		typ string
		o   engine.Object
	}{{agent, deleted, o}, {agent, modified, o8}, {&v2, modified, o}} {
		if b, _ := c.line(k.res, k.typ, k.o, enc("other")); string(b) != "other" {
			t.Errorf("%s %s rev %d: %q, not its own line", k.res.Version, k.typ, k.o.Revision, b)
		}
	}
	for i := range encCacheSize {
		x := o
		x.Name = fmt.Sprint("b", i)
		_, _ = c.line(agent, added, x, enc("x"))
	}
	if len(c.lines) != encCacheSize || len(c.order) != encCacheSize {
		t.Errorf("cache holds %d lines (%d keys), want at most %d", len(c.lines), len(c.order), encCacheSize)
	}
	before := encodes.Load()
	if b, _ := c.line(agent, modified, o, enc("again")); string(b) != "again" || encodes.Load() != before+1 {
		t.Errorf("an evicted change was not encoded again: %q", b)
	}
}

// A watcher thousands of changes behind the first one (many watchers
// catching up on a burst of changes) still finds their lines encoded.
func TestLaggingWatcherSharesEncoding(t *testing.T) {
	c := newEncCache()
	agent := &Resource{Resource: kubekinds.Resource{Group: "agent-install.openshift.io", Version: "v1beta1", Kind: "Agent"}}
	encodes := 0
	enc := func() ([]byte, error) { encodes++; return []byte("l"), nil }
	o := engine.Object{ObjectRef: engine.ObjectRef{Group: agent.Group, Kind: "Agent", Namespace: "ns", Name: "a"}}
	const burst = 5000
	for pass := range 2 { // the first watcher, then one 5,000 changes behind
		for i := range burst {
			o.Revision = uint64(i + 1)
			if _, err := c.line(agent, modified, o, enc); err != nil {
				t.Fatal(err)
			}
		}
		if encodes != burst {
			t.Fatalf("after watcher %d: %d encodes of %d changes, want each once", pass+1, encodes, burst)
		}
	}
}
