package kubeapi

import (
	"strconv"
	"sync"

	"github.com/rackboot/rackboot/engine"
)

// encCacheSize bounds the watch event lines kept. The watchers of a
// change do not send it at the same time: 100 watchers catching up on a
// burst (10,000 Agents settling after a registration storm) drift
// thousands of changes apart on 2 CPUs, and with 512 lines each watcher
// rendered most changes itself (the kube benchmark's watch phase spent
// 78% of its CPU there and did not finish). 8192 lines of a 6 KB Agent
// are about 50 MiB at most.
const encCacheSize = 8192

// encCache keeps the encoded watch line of the latest changes, so that N
// watchers of the same change render and marshal it once instead of N
// times (100 watchers of an Agent: 100 JSON decodes and encodes of the
// whole object per change). Only lines that are the same for every
// watcher are kept: JSON (not Table) events of non-Secret objects.
type encCache struct {
	mu    sync.Mutex
	lines map[string]*encLine
	order []string // keys, oldest first
}

// encLine is one change's line, encoded by the first watcher that needs it.
type encLine struct {
	once sync.Once
	b    []byte
	err  error
}

func newEncCache() *encCache { return &encCache{lines: map[string]*encLine{}} }

// line returns the line of typ for o as res renders it, encoding it with
// enc the first time.
func (c *encCache) line(res *Resource, typ string, o engine.Object, enc func() ([]byte, error)) ([]byte, error) {
	key := res.GroupVersion() + "\x00" + res.Kind + "\x00" + typ + "\x00" + o.Key() + "\x00" + strconv.FormatUint(o.Revision, 10)
	c.mu.Lock()
	l, ok := c.lines[key]
	if !ok {
		l = &encLine{}
		c.lines[key] = l
		c.order = append(c.order, key)
		if len(c.order) > encCacheSize {
			delete(c.lines, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.mu.Unlock()
	l.once.Do(func() { l.b, l.err = enc() })
	return l.b, l.err
}
