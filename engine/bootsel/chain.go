package bootsel

import (
	"context"
	"errors"
	"net"
	"sync/atomic"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/boot/httpboot"
	"github.com/rackboot/rackboot/dhcp"
)

// Fallback boots what the engine does not claim: the daemon's profile
// catalog (boot.Holder), with its MAC lists, default profile and Ignition
// files.
type Fallback interface {
	httpboot.Chooser
	dhcp.Booter
}

// Chain is the boot chooser handed to the HTTP boot server and the DHCP
// server. The engine decides first (a registered host, a reservation
// naming an infra-env, an NMState config, the default infra-env); a MAC
// that a profile lists by name (SetListed) boots that profile rather than
// the default infra-env; a MAC the engine does not claim falls back to the
// catalog.
type Chain struct {
	sel      *Selector
	fallback Fallback
	listed   atomic.Pointer[macSet]
}

// macSet is the MACs that profiles list.
type macSet map[macKey]struct{}

var (
	_ httpboot.Chooser = (*Chain)(nil)
	_ dhcp.Booter      = (*Chain)(nil)
)

// NewChain returns the chain of sel, then fallback; listed are the MACs
// the fallback's profiles list by name.
func NewChain(sel *Selector, fallback Fallback, listed []net.HardwareAddr) *Chain {
	c := &Chain{sel: sel, fallback: fallback}
	c.SetListed(listed)
	return c
}

// SetListed records the MACs the fallback's profiles list (at start and
// at a reload).
func (c *Chain) SetListed(macs []net.HardwareAddr) {
	set := macSet{}
	for _, m := range macs {
		if k, ok := keyOf(m); ok {
			set[k] = struct{}{}
		}
	}
	c.listed.Store(&set)
}

// engineBoots reports whether the engine, rather than the fallback, says
// what mac boots.
func (c *Chain) engineBoots(ctx context.Context, mac net.HardwareAddr) bool {
	d, err := c.sel.Decide(ctx, mac)
	if err != nil {
		return false
	}
	if d.Source != SourceDefault {
		return true
	}
	k, ok := keyOf(mac)
	_, listed := (*c.listed.Load())[k]
	return !ok || !listed
}

// Choose implements httpboot.Chooser.
func (c *Chain) Choose(ctx context.Context, mac net.HardwareAddr) (boot.Choice, error) {
	if c.engineBoots(ctx, mac) {
		ch, err := c.sel.Choose(ctx, mac)
		if err == nil || !errors.Is(err, boot.ErrNoBoot) {
			return ch, err
		}
	}
	return c.fallback.Choose(ctx, mac)
}

// Bootable implements dhcp.Booter.
func (c *Chain) Bootable(ctx context.Context, mac net.HardwareAddr) bool {
	return c.engineBoots(ctx, mac) || c.fallback.Bootable(ctx, mac)
}
