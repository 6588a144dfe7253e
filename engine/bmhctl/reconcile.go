package bmhctl

import (
	"context"
	"errors"
	"fmt"

	"github.com/rackboot/rackboot/bmc"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// view is what one reconcile of a BMH reads from the model.
type view struct {
	bmh     engine.BareMetalHost
	ie      engine.InfraEnv
	ieOK    bool
	cand    engine.Host // the host to pair with (candOK)
	candInv *models.Inventory
	candOK  bool
	paired  engine.Host // the paired host (pairedOK)
	pairOK  bool
	secret  engine.Secret
	secOK   bool
}

func (c *Controller) read(name string) (view, bool) {
	var (
		v  view
		ok bool
	)
	c.o.Store.Read(func(m *engine.Model) {
		if v.bmh, ok = m.BareMetalHost(name); !ok {
			return
		}
		if ref := v.bmh.InfraEnvRef(); ref != "" {
			v.ie, v.ieOK = m.InfraEnvByRef(ref)
		}
		if id := v.bmh.Status.HostID; id != "" {
			v.paired, v.pairOK = m.Host(id)
			v.pairOK = v.pairOK && v.paired.BMHName == name
		}
		// Only an unpaired BMH looks for its host (inventories are parsed).
		if !v.pairOK && v.ieOK && v.bmh.BootMACAddress != "" && !v.bmh.Detached() {
			v.cand, v.candInv, v.candOK = MatchHost(m, v.ie.ID, v.bmh.BootMACAddress)
		}
		v.secret, v.secOK = m.Secret(v.bmh.BMC.CredentialsName)
	})
	return v, ok
}

// reconcile takes BMH name one step further (see the package doc).
func (c *Controller) reconcile(ctx context.Context, name string) {
	v, ok := c.read(name)
	if !ok || v.bmh.Detached() || v.bmh.Status.ProvisioningState == engine.BMHDetached {
		return
	}
	b := v.bmh
	if b.Status.ErrorCount > 0 && c.o.Now().Before(b.Status.NextRetryAt) {
		return
	}
	if Permanent(b.Status) {
		return // until the BMH changes (engine.UpdateBareMetalHost clears it)
	}
	if !v.pairOK && v.candOK {
		c.pair(ctx, v)
		return
	}
	if b.BMC.Address == "" {
		return
	}
	if !b.Online {
		c.keepOff(ctx, v)
		return
	}
	state := b.Status.ProvisioningState
	if b.Status.PowerState == string(bmc.PowerOff) && wantsBoot(b) && !handedToDisk(v) {
		state = engine.BMHAvailable // off (offline, or found off): boot it again
	}
	switch state {
	case engine.BMHProvisioning:
		if v.pairOK { // paired while it was offline, booted again since
			c.succeed(ctx, b, engine.BMHProvisioned, bmc.PowerState(b.Status.PowerState), b.Status.LastOperation)
		}
		return
	case engine.BMHProvisioned:
		if !v.pairOK || !pastDiskWrite(v.paired) {
			return
		}
	case engine.BMHAvailable:
		if !wantsBoot(b) {
			return
		}
	}
	drv, addr, pass, err := c.connect(v)
	if err != nil {
		c.fail(ctx, b, "connect", err)
		return
	}
	if state == engine.BMHProvisioned {
		c.finish(ctx, v, drv, addr, pass)
		return
	}
	c.provision(ctx, v, drv, addr, pass)
}

// keepOff powers an offline BMH off, once: its last known power state
// says whether it is needed. It then waits, available, until it is online
// again (and is provisioned anew).
func (c *Controller) keepOff(ctx context.Context, v view) {
	b := v.bmh
	if b.Status.PowerState == string(bmc.PowerOff) {
		return
	}
	drv, _, pass, err := c.connect(v)
	if err != nil {
		c.fail(ctx, b, "connect", err)
		return
	}
	a := action{c: c, b: b, hostID: b.Status.HostID, ie: v.ie.ID, drv: drv, hidden: []string{pass}}
	if a.powerOff(ctx) {
		c.succeed(ctx, b, engine.BMHAvailable, bmc.PowerOff, a.last)
	}
}

// bootMode is the firmware mode of the BMH's one-time boots: its bootMode
// (UEFISecureBoot boots UEFI; secure boot itself is the firmware's
// setting), or unchanged when it names none.
func bootMode(b engine.BareMetalHost) bmc.BootMode {
	switch b.BootMode {
	case engine.BootModeUEFI, engine.BootModeUEFISecureBoot:
		return bmc.BootModeUEFI
	case engine.BootModeLegacy:
		return bmc.BootModeLegacy
	}
	return bmc.BootModeUnchanged
}

// wantsBoot: the BMH is online and labelled with an infra-env.
func wantsBoot(b engine.BareMetalHost) bool { return b.Online && b.InfraEnvRef() != "" }

// handedToDisk: the BMH is provisioned and its host wrote the disk; off,
// it is powered on from the disk (finish), not booted into discovery.
func handedToDisk(v view) bool {
	return v.bmh.Status.ProvisioningState == engine.BMHProvisioned && v.pairOK && pastDiskWrite(v.paired)
}

// pastDiskWrite: the host's installer wrote the disk and hands the
// reboot to the BMC (stage Rebooting or later, or installed).
func pastDiskWrite(h engine.Host) bool {
	switch models.HostStage(h.Progress.CurrentStage) {
	case models.HostStageRebooting, models.HostStageWaitingForIgnition, models.HostStageConfiguring,
		models.HostStageJoined, models.HostStageDone:
		return true
	}
	return h.Status == models.HostStatusInstalled || h.Status == models.HostStatusAddedToExistingCluster
}

// connect parses the BMC address, opens the credentials and returns the
// BMH's driver and the password (which no message may show).
func (c *Controller) connect(v view) (bmc.Driver, bmc.Address, string, error) {
	b := v.bmh
	addr, err := bmc.ParseAddress(b.BMC.Address)
	if err != nil {
		return nil, addr, "", fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if !v.secOK {
		return nil, addr, "", fmt.Errorf("%w: credentials secret %q not found", ErrConfig, b.BMC.CredentialsName)
	}
	user, err := c.o.Unseal(v.secret.Name, engine.BMCSecretUsername, v.secret.Data[engine.BMCSecretUsername])
	if err != nil {
		return nil, addr, "", fmt.Errorf("%w: credentials secret %q: username: %w", ErrConfig, v.secret.Name, err)
	}
	pass, err := c.o.Unseal(v.secret.Name, engine.BMCSecretPassword, v.secret.Data[engine.BMCSecretPassword])
	if err != nil {
		return nil, addr, "", fmt.Errorf("%w: credentials secret %q: password: %w", ErrConfig, v.secret.Name, err)
	}
	creds := bmc.Credentials{Username: string(user), Password: string(pass),
		InsecureSkipVerify: b.BMC.DisableCertificateVerification}
	return c.driver(b.Name, addr, creds), addr, creds.Password, nil
}

// provision reads the power state and, for an online BMH with an
// infra-env, sets up the discovery boot and powers the machine on.
func (c *Controller) provision(ctx context.Context, v view, drv bmc.Driver, addr bmc.Address, pass string) {
	b := v.bmh
	ps, err := drv.PowerState(ctx)
	if err != nil {
		c.fail(ctx, b, "read power state", err, pass)
		return
	}
	if !wantsBoot(b) {
		c.succeed(ctx, b, engine.BMHAvailable, ps, "read power state: "+string(ps))
		return
	}
	if !v.ieOK {
		c.fail(ctx, b, "provision", fmt.Errorf("%w: infra-env %q (label %s) not found", ErrConfig, b.InfraEnvRef(), engine.LabelInfraEnv))
		return
	}
	if !c.ensureNetwork(ctx, v) {
		return
	}
	a := action{c: c, b: b, hostID: b.Status.HostID, ie: v.ie.ID, drv: drv, hidden: []string{pass}}
	if addr.Boot == bmc.BootMethodVirtualMedia && !a.insert(ctx, c.o.Images) {
		return
	}
	if !a.bootOnce(ctx, addr.BootDevice(), bootMode(b)) || !a.powerOnOrReset(ctx, ps) {
		return
	}
	c.succeed(ctx, b, engine.BMHProvisioning, bmc.PowerOn, a.last)
}

// finish hands the machine to its disk: eject, one-time Hdd boot, reset
// (power on when it was found off), then the detached annotation.
func (c *Controller) finish(ctx context.Context, v view, drv bmc.Driver, addr bmc.Address, pass string) {
	b := v.bmh
	a := action{c: c, b: b, hostID: v.paired.ID, ie: v.paired.InfraEnvID, drv: drv, hidden: []string{pass}}
	if addr.Boot == bmc.BootMethodVirtualMedia && !a.eject(ctx) {
		return
	}
	ps := bmc.PowerOn // reset unless the machine is known to be off
	if b.Status.PowerState == string(bmc.PowerOff) {
		ps = bmc.PowerOff
	}
	if !a.bootOnce(ctx, bmc.BootHdd, bootMode(b)) || !a.powerOnOrReset(ctx, ps) {
		return
	}
	b, ok := c.succeed(ctx, b, engine.BMHDetached, bmc.PowerOn, a.last)
	if !ok {
		return
	}
	val := "rackboot"
	_, err := c.o.Store.Apply(ctx, &engine.UpdateBareMetalHost{Name: b.Name, Patch: engine.BMHPatch{
		Annotations: map[string]*string{engine.AnnotationDetached: &val}}})
	if err != nil {
		c.o.Log.WarnContext(ctx, "annotate detached", "bmh", b.Name, "err", err)
		return
	}
	c.event(ctx, b, v.paired.ID, v.paired.InfraEnvID, "bmh_detached", "info",
		fmt.Sprintf("BareMetalHost %s: detached (booted from disk, annotated %s)", b.Name, engine.AnnotationDetached))
}

// pair pairs the BMH with the host that registered with its boot MAC.
func (c *Controller) pair(ctx context.Context, v view) {
	b := v.bmh
	f, err := HostFields(b, v.candInv)
	if err != nil {
		c.fail(ctx, b, "pair with host "+v.cand.ID, err)
		return
	}
	h, err := engine.ApplyAs[engine.Host](ctx, c.o.Store, &engine.PairBareMetalHost{Name: b.Name, HostID: v.cand.ID, Host: f})
	if err != nil {
		if !errors.Is(err, engine.ErrConflict) && !errors.Is(err, engine.ErrNotFound) {
			c.o.Log.WarnContext(ctx, "pair", "bmh", b.Name, "host", v.cand.ID, "err", err)
			return
		}
		c.fail(ctx, b, "pair with host "+v.cand.ID, fmt.Errorf("%w: %w", ErrConfig, err))
		return
	}
	msg := fmt.Sprintf("BareMetalHost %s: paired with host %s by boot MAC %s; approved", b.Name, h.ID, b.BootMACAddress)
	if f.InstallationDiskID != nil {
		msg += "; installation disk " + *f.InstallationDiskID + " from rootDeviceHints"
	}
	c.o.Log.InfoContext(ctx, "baremetal host paired", "bmh", b.Name, "host", h.ID, "mac", b.BootMACAddress)
	c.event(ctx, b, h.ID, h.InfraEnvID, "bmh_paired", "info", msg)
}
