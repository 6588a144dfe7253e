package api

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// maxCachedInventories bounds the cache; past it the cache starts over.
const maxCachedInventories = 200_000

// invCache keeps decoded inventories, so that evaluating one host of a
// large cluster does not decode every other host's inventory again. The
// decoded values are shared: treat them as read-only (the validation
// package copies what it changes).
type invCache struct {
	mu sync.Mutex
	m  map[string]invEntry
}

type invEntry struct {
	raw json.RawMessage
	inv *models.Inventory
}

// get returns h's decoded inventory; nil when it has none or it cannot be
// decoded (the step reply handler refuses such inventories).
func (c *invCache) get(h engine.Host) *models.Inventory {
	if len(h.Inventory) == 0 {
		return nil
	}
	c.mu.Lock()
	e, ok := c.m[h.ID]
	if ok && len(e.raw) == len(h.Inventory) && &e.raw[0] == &h.Inventory[0] {
		c.mu.Unlock()
		return e.inv
	}
	c.mu.Unlock()
	if ok && bytes.Equal(e.raw, h.Inventory) {
		// The same inventory in another slice (the model's copy of what
		// a handler decoded): remember the model's, which is what later
		// reads return.
		c.mu.Lock()
		c.m[h.ID] = invEntry{raw: h.Inventory, inv: e.inv}
		c.mu.Unlock()
		return e.inv
	}
	var inv models.Inventory
	if err := json.Unmarshal(h.Inventory, &inv); err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedInventories {
		c.m = map[string]invEntry{}
	}
	c.m[h.ID] = invEntry{raw: h.Inventory, inv: &inv}
	return &inv
}
