package boot

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"
)

// Holder holds the current Catalog and swaps it atomically, so a reload
// (SIGHUP) replaces profiles and hosts without stopping readers: a request
// already being served keeps the catalog it started with. The zero value
// holds no catalog, and then no MAC is bootable.
type Holder struct {
	cur atomic.Pointer[Catalog]
}

// NewHolder returns a Holder holding c (which may be nil).
func NewHolder(c *Catalog) *Holder {
	h := &Holder{}
	h.cur.Store(c)
	return h
}

// Catalog returns the current catalog, or nil.
func (h *Holder) Catalog() *Catalog { return h.cur.Load() }

// Swap installs c as the current catalog and returns the previous one.
func (h *Holder) Swap(c *Catalog) *Catalog { return h.cur.Swap(c) }

// Choose asks the current catalog what mac boots.
func (h *Holder) Choose(ctx context.Context, mac net.HardwareAddr) (Choice, error) {
	c := h.cur.Load()
	if c == nil {
		return Choice{}, fmt.Errorf("%w %s: no boot profiles are loaded", ErrNoBoot, mac)
	}
	return c.Choose(ctx, mac)
}

// Bootable asks the current catalog whether mac gets a boot at all.
func (h *Holder) Bootable(ctx context.Context, mac net.HardwareAddr) bool {
	c := h.cur.Load()
	return c != nil && c.Bootable(ctx, mac)
}
