package hosts

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// maxCachedDocs bounds a cache; past it the cache starts over.
const maxCachedDocs = 200_000

// docCache keeps decoded JSON documents of hosts (inventories,
// connectivity reports), so that evaluating one host of a large cluster
// does not decode every other host's documents again. The decoded values
// are shared: treat them as read-only (the validation package copies what
// it changes).
type docCache[T any] struct {
	mu sync.Mutex
	m  map[string]docEntry[T]
}

type docEntry[T any] struct {
	raw json.RawMessage
	doc *T
}

// lookup returns raw decoded, remembered under host id; nil when raw is
// empty or cannot be decoded (the step reply handler refuses such
// documents).
func (c *docCache[T]) lookup(id string, raw json.RawMessage) *T {
	if len(raw) == 0 {
		return nil
	}
	c.mu.Lock()
	e, ok := c.m[id]
	if ok && len(e.raw) == len(raw) && &e.raw[0] == &raw[0] {
		c.mu.Unlock()
		return e.doc
	}
	c.mu.Unlock()
	if ok && bytes.Equal(e.raw, raw) {
		// The same document in another slice (the model's copy of what a
		// handler decoded): remember the model's, which is what later
		// reads return.
		c.put(id, docEntry[T]{raw: raw, doc: e.doc})
		return e.doc
	}
	var doc T
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil
	}
	c.put(id, docEntry[T]{raw: raw, doc: &doc})
	return &doc
}

func (c *docCache[T]) put(id string, e docEntry[T]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedDocs {
		c.m = map[string]docEntry[T]{}
	}
	c.m[id] = e
}

// invCache keeps decoded inventories.
type invCache struct{ docs docCache[models.Inventory] }

// get returns h's decoded inventory; nil when it has none.
func (c *invCache) get(h engine.Host) *models.Inventory { return c.docs.lookup(h.ID, h.Inventory) }
