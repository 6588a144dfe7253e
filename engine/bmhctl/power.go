package bmhctl

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/rackboot/rackboot/bmc"
	"github.com/rackboot/rackboot/engine"
)

// RefreshPower reads the power state of every BMH not being worked on
// and stores those that changed (see refresh); it returns when done: one
// pass of what Run does every PowerInterval, for tests and for a caller
// with its own schedule.
func (c *Controller) RefreshPower(ctx context.Context) {
	var wg sync.WaitGroup
	c.each(ctx, &wg, c.refresh)
	wg.Wait()
}

// refresh reads BMH name's power state from its BMC and, when it is On
// or Off and differs from the stored one, stores it (nothing else of the
// status) and reconciles the BMH at once, so an online machine found off
// is powered on again and an offline one found on is powered off. A BMC
// that does not answer is logged; the status stays as it was.
func (c *Controller) refresh(ctx context.Context, name string) {
	v, ok := c.readPower(name)
	if !ok || !refreshable(v) {
		return
	}
	b := v.bmh
	drv, _, pass, err := c.connect(v)
	if err != nil {
		c.refreshFailed(ctx, b, err, pass)
		return
	}
	ps, err := drv.PowerState(ctx)
	if err != nil {
		c.refreshFailed(ctx, b, err, pass)
		return
	}
	if !settled(ps) || string(ps) == b.Status.PowerState {
		return
	}
	if c.storePower(ctx, b, ps) {
		c.reconcile(ctx, name)
	}
}

// readPower reads what refresh needs: the BMH and its secret.
func (c *Controller) readPower(name string) (view, bool) {
	var (
		v  view
		ok bool
	)
	c.o.Store.Read(func(m *engine.Model) {
		if v.bmh, ok = m.BareMetalHost(name); ok {
			v.secret, v.secOK = m.Secret(v.bmh.BMC.CredentialsName)
		}
	})
	return v, ok
}

// refreshable: the BMH is attached, has a BMC and its credentials, is
// registered (its power state was read) and is not failing. A failing
// BMH's BMC is asked only at its backoff, by reconcile.
func refreshable(v view) bool {
	b := v.bmh
	return !b.Detached() && b.Status.ProvisioningState != engine.BMHDetached &&
		b.BMC.Address != "" && v.secOK && b.Status.ErrorCount == 0 &&
		settled(bmc.PowerState(b.Status.PowerState))
}

// settled: On or Off, the states worth storing (a machine powering on or
// off, or Unknown, is read again at the next refresh).
func settled(ps bmc.PowerState) bool { return ps == bmc.PowerOn || ps == bmc.PowerOff }

// storePower stores ps as b's power state if b did not change since it
// was read; an event says so.
func (c *Controller) storePower(ctx context.Context, b engine.BareMetalHost, ps bmc.PowerState) bool {
	st := b.Status
	st.PowerState = string(ps)
	_, err := c.o.Store.Apply(ctx, &engine.SetBareMetalHostStatus{Name: b.Name, Revision: b.Revision, Status: st})
	if errors.Is(err, engine.ErrConflict) || errors.Is(err, engine.ErrNotFound) {
		return false // changed meanwhile: the next refresh reads it again
	}
	if err != nil {
		c.o.Log.WarnContext(ctx, "baremetal host power state", "bmh", b.Name, "host", b.Status.HostID, "err", err)
		return false
	}
	c.o.Log.InfoContext(ctx, "baremetal host power state changed", "bmh", b.Name, "host", b.Status.HostID,
		"mac", b.BootMACAddress, "power_state", ps, "was", b.Status.PowerState)
	c.event(ctx, b, b.Status.HostID, "", "bmh_power_state", "info",
		fmt.Sprintf("BareMetalHost %s: power state %s (was %s), found by the periodic check", b.Name, ps, b.Status.PowerState))
	return true
}

// refreshFailed logs a power state that could not be read. It is not
// counted in the status: that would put the BMH in backoff and hold up
// its pairing and installation for a BMC that missed one periodic check.
func (c *Controller) refreshFailed(ctx context.Context, b engine.BareMetalHost, err error, pass string) {
	c.o.Log.WarnContext(ctx, "baremetal host power state refresh failed", "bmh", b.Name, "host", b.Status.HostID,
		"mac", b.BootMACAddress, "error_type", Classify(err), "err", clip(redact(err.Error(), pass)))
}
