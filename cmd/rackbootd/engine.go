package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/api"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/bootsel"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/validation"
)

// keyRingTimeout bounds waiting for the signing key ring (the leader
// creates it; a one-node cluster is its own leader).
const keyRingTimeout = 60 * time.Second

// newEngine builds the discovery engine's parts over the open store: the
// admin token, the key ring shared by the API and the boot selector, the
// selector (the boot chooser, with the profile catalog as fallback) and the
// API handler.
func (d *daemon) newEngine(ctx context.Context) error {
	token, err := d.adminToken()
	if err != nil {
		return fmt.Errorf("admin token: %w", err)
	}
	kctx, cancel := context.WithTimeout(ctx, keyRingTimeout)
	defer cancel()
	keys, err := engine.LoadKeyRing(kctx, d.store)
	if err != nil {
		return fmt.Errorf("signing keys: %w", err)
	}
	sel, err := bootsel.New(bootsel.Options{
		Store: d.store, Keys: keys, ServiceURL: d.cfg.BaseURL(),
		Settings: selSettings(d.cfg), Log: d.log.With("service", "bootsel"),
		Labels: engine.BMHLabeler{},
	})
	if err != nil {
		return fmt.Errorf("boot selector: %w", err)
	}
	d.sel = sel
	if err := d.syncConfigImageSets(ctx, d.cfg); err != nil {
		return err
	}
	d.chooser = bootsel.NewChain(sel, d.holder, profileMACs(d.cfg))
	thresholds := d.cfg.Engine.Thresholds
	d.apiOpts = api.Options{
		Store: d.store, AdminToken: token, Keys: keys,
		ServiceURL: d.cfg.BaseURL(), BootURL: d.cfg.BaseURL(),
		Thresholds:  func(*engine.Model, string) validation.Thresholds { return thresholds },
		RemoteAgent: sel.RemoteAgent,
		Log:         d.log.With("service", "api"),
	}
	if err := d.newBMH(); err != nil {
		return err
	}
	if err := d.newKube(); err != nil {
		return err
	}
	h, err := api.New(d.apiOpts)
	if err != nil {
		return fmt.Errorf("api: %w", err)
	}
	d.api = adminGuard{next: h, token: token, remote: d.cfg.API.AdminRemote}
	return nil
}

// profileMACs are the MACs cfg's profiles list by name: they boot their
// profile rather than the default infra-env (bootsel.Chain).
func profileMACs(cfg *config.Config) []net.HardwareAddr {
	var out []net.HardwareAddr
	for _, p := range cfg.Profiles {
		out = append(out, p.MACs...)
	}
	return out
}

// selSettings is the boot selector's view of the configuration: the
// profiles as kernel, initrd and command line source, the default
// infra-env and profile, and the reservations.
func selSettings(cfg *config.Config) bootsel.Settings {
	st := bootsel.Settings{
		Profiles:        bootsel.NewProfileMap(append(bootProfiles(cfg), liveProfiles(cfg)...)),
		DefaultProfile:  cfg.Engine.DefaultProfile,
		DefaultInfraEnv: cfg.Engine.DefaultInfraEnv,
	}
	for _, r := range cfg.DHCP.Reservations {
		st.Reservations = append(st.Reservations, bootsel.Reservation{MAC: r.MAC, InfraEnv: r.InfraEnv, Hostname: r.Hostname})
	}
	for goarch, a := range cfg.Server.Agents {
		if st.Agents == nil {
			st.Agents = map[string]bootsel.AgentBinary{}
		}
		st.Agents[goarch] = bootsel.AgentBinary{Path: a.Path, SHA512: a.SHA512}
	}
	return st
}

// runEngine starts the selector's MAC index and, on the leader, the host
// monitor and the BareMetalHost controller; all end with ctx.
func (d *daemon) runEngine(ctx context.Context) {
	d.runBMH(ctx)
	d.runInstall(ctx)
	d.runKube(ctx)
	d.runOSImages(ctx)
	d.wg.Add(4)
	go func() {
		defer d.wg.Done()
		d.sel.Run(ctx)
	}()
	go func() {
		defer d.wg.Done()
		d.syncImageSetsOnLeading(ctx)
	}()
	go func() {
		defer d.wg.Done()
		// Another appliance may rotate or retire a signing key.
		engine.FollowKeyRing(ctx, d.store, d.apiOpts.Keys, d.log.With("service", "keys"))
	}()
	go func() {
		defer d.wg.Done()
		engine.WhileLeader(ctx, d.store, func(ctx context.Context) {
			opts := d.apiOpts.HostOptions()
			opts.Store = engine.Fence(d.store) // a deposed leader's late writes are refused
			mon, err := hosts.New(opts)
			if err == nil {
				err = mon.Monitor(ctx, d.cfg.Engine.MonitorInterval, &d.loops.monitor)
			}
			if err != nil {
				d.log.Error("host monitor stopped", "err", err)
			}
		})
	}()
}

// mountAPI adds the API to the HTTP mux.
func (d *daemon) mountAPI(mux *http.ServeMux) {
	mux.Handle(api.BasePath+"/", d.api)
	d.mountCluster(mux, d.apiOpts.AdminToken) // cluster.go
	d.mountBackup(mux, d.apiOpts.AdminToken)  // backup.go
}

// adminToken is the rack's shared admin token ([cluster] admin_token),
// installed in data_dir for the local rackbootctl, or else this
// appliance's own token in data_dir (created on first start).
func (d *daemon) adminToken() (string, error) {
	cl := d.cfg.Cluster
	if cl == nil || cl.AdminToken == "" {
		return auth.LoadOrCreateAdminToken(d.cfg.Server.DataDir)
	}
	tok, err := auth.ReadAdminToken(cl.AdminToken)
	if err != nil {
		return "", err
	}
	if err := auth.InstallAdminToken(d.cfg.Server.DataDir, tok); err != nil {
		return "", err
	}
	return tok, nil
}
