package main

import (
	"context"
	"errors"
	"net"
	"sync/atomic"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
	"github.com/rackboot/rackboot/engine/bootsel"
)

// chain is the boot chooser handed to the HTTP boot server and the DHCP
// server. The engine decides first (a registered host, a reservation
// naming an infra-env, an NMState config, the default infra-env); a MAC
// that a [[profile]] lists by name boots that profile rather than the
// default infra-env; a MAC the engine does not claim falls back to the
// profile catalog (its MAC lists, its default profile, its Ignition files
// with the reservations' hostnames).
type chain struct {
	sel     *bootsel.Selector
	catalog *boot.Holder
	listed  atomic.Pointer[macSet]
}

// macSet is the MACs that profiles list.
type macSet map[[6]byte]struct{}

func newChain(sel *bootsel.Selector, catalog *boot.Holder, cfg *config.Config) *chain {
	c := &chain{sel: sel, catalog: catalog}
	c.setProfiles(cfg)
	return c
}

// setProfiles records the MACs cfg's profiles list (at start and reload).
func (c *chain) setProfiles(cfg *config.Config) {
	set := macSet{}
	for _, p := range cfg.Profiles {
		for _, m := range p.MACs {
			if k, ok := macKey(m); ok {
				set[k] = struct{}{}
			}
		}
	}
	c.listed.Store(&set)
}

func macKey(mac net.HardwareAddr) ([6]byte, bool) {
	var k [6]byte
	if len(mac) != 6 {
		return k, false
	}
	copy(k[:], mac)
	return k, true
}

// engineBoots reports whether the engine, rather than the catalog, says
// what mac boots.
func (c *chain) engineBoots(ctx context.Context, mac net.HardwareAddr) bool {
	d, err := c.sel.Decide(ctx, mac)
	if err != nil {
		return false
	}
	if d.Source != bootsel.SourceDefault {
		return true
	}
	k, ok := macKey(mac)
	_, listed := (*c.listed.Load())[k]
	return !ok || !listed
}

// Choose implements httpboot.Chooser.
func (c *chain) Choose(ctx context.Context, mac net.HardwareAddr) (boot.Choice, error) {
	if c.engineBoots(ctx, mac) {
		ch, err := c.sel.Choose(ctx, mac)
		if err == nil || !errors.Is(err, boot.ErrNoBoot) {
			return ch, err
		}
	}
	return c.catalog.Choose(ctx, mac)
}

// Bootable implements dhcp.Booter.
func (c *chain) Bootable(ctx context.Context, mac net.HardwareAddr) bool {
	return c.engineBoots(ctx, mac) || c.catalog.Bootable(ctx, mac)
}
