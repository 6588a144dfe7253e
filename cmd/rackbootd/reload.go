package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
)

// errRestart is wrapped by a reload refused because it changes a setting
// that only a restart applies.
var errRestart = errors.New("restart rackbootd to apply")

// reload re-reads the configuration file (SIGHUP). A good file replaces the
// DHCP settings, reservations and profiles at once; leases, and transfers in
// flight, are kept. A bad one is logged, reported in systemd's status line,
// and changes nothing.
func (d *daemon) reload(path string) {
	d.notify.reloading()
	d.log.Info("reloading configuration", "config", path)
	ld, err := load(path, true, d.currentOSImages)
	if err == nil {
		err = d.apply(ld)
	}
	d.reportReload(err == nil, ld)
	if err != nil {
		d.reloadsFail.Add(1)
		d.lastReloadFailed.Store(true)
		d.log.Error("reload failed; the running configuration stays", "err", err.Error())
		d.notify.ready(statusLine(d, "reload failed ("+firstLine(err)+"); still serving the previous configuration: "))
		return
	}
	d.reloadsOK.Add(1)
	d.lastReloadFailed.Store(false)
	for _, w := range ld.warnings {
		d.log.Warn(w)
	}
	d.log.Info("configuration reloaded", "profiles", len(d.cfg.Profiles), "reservations", len(d.cfg.DHCP.Reservations))
	d.notify.ready(statusLine(d, "reloaded; serving: "))
}

// reportReload tells the AgentServiceConfig's status which osImages
// entries the reload left out (ok: it was applied).
func (d *daemon) reportReload(ok bool, ld *loaded) {
	var out []string
	if ok {
		out = ld.osImagesOut
	}
	ctx, cancel := context.WithTimeout(context.Background(), reportTimeout)
	defer cancel()
	d.asc.reloaded(ctx, ok, out)
}

// reportTimeout bounds the AgentServiceConfig status write of a reload.
const reportTimeout = 10 * time.Second

// apply swaps in a loaded configuration: all of it or, on error, none.
func (d *daemon) apply(ld *loaded) error {
	if changed := restartOnly(d.cfg, ld.cfg); len(changed) > 0 {
		return fmt.Errorf("%s changed: %w", strings.Join(changed, ", "), errRestart)
	}
	if d.dhcp != nil {
		if err := d.dhcp.Reload(dhcpConfig(ld.cfg)); err != nil {
			return err
		}
	}
	if err := d.sel.Reload(selSettings(ld.cfg)); err != nil {
		if d.dhcp != nil {
			_ = d.dhcp.Reload(dhcpConfig(d.cfg)) // back to the running settings
		}
		return fmt.Errorf("boot selector: %w", err)
	}
	d.holder.Swap(ld.catalog)
	d.chooser.SetListed(profileMACs(ld.cfg))
	d.level.Set(ld.cfg.Server.LogLevel)
	d.cfg = ld.cfg
	d.imageSets.Store(&ld.cfg.ImageSets)
	if err := d.syncConfigImageSets(context.Background(), ld.cfg); err != nil {
		return fmt.Errorf("the rest of the configuration is applied, but %w", err)
	}
	return nil
}

// restartOnly lists the settings that differ between a and b and that the
// running sockets and servers were built from.
func restartOnly(a, b *config.Config) []string {
	var changed []string
	check := func(key string, same bool) {
		if !same {
			changed = append(changed, key)
		}
	}
	check("server.data_dir", a.Server.DataDir == b.Server.DataDir)
	check("server.advertise", a.Server.Advertise == b.Server.Advertise)
	check("server.http_listen", a.Server.HTTPListen == b.Server.HTTPListen)
	check("server.pprof_listen", a.Server.PprofListen == b.Server.PprofListen)
	check("server.log_format", a.Server.LogFormat == b.Server.LogFormat)
	check("dhcp.mode", a.DHCP.Mode == b.DHCP.Mode)
	check("dhcp.interfaces", slices.Equal(a.DHCP.Interfaces, b.DHCP.Interfaces))
	check("tftp.enabled", a.TFTP.Enabled == b.TFTP.Enabled)
	check("tftp.listen", a.TFTP.Listen == b.TFTP.Listen)
	check("tftp.root", a.TFTP.Root == b.TFTP.Root)
	check("tftp.max_transfers_per_client", a.TFTP.MaxTransfersPerClient == b.TFTP.MaxTransfersPerClient)
	ta, tb := a.Engine.Thresholds, b.Engine.Thresholds
	check("engine.disconnect_after", ta.DisconnectAfter == tb.DisconnectAfter)
	ta.DisconnectAfter, tb.DisconnectAfter = 0, 0
	check("engine.thresholds", ta == tb)
	check("engine.monitor_interval", a.Engine.MonitorInterval == b.Engine.MonitorInterval)
	check("api.admin_remote", a.API.AdminRemote == b.API.AdminRemote)
	check("cluster", !clusterChanged(a, b))
	return changed
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
