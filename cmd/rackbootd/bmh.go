package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bmhctl"
	"github.com/rackboot/rackboot/engine/isoserve"
	"github.com/rackboot/rackboot/engine/pxeserve"
)

// bmhParts are the BareMetalHost parts of the daemon: the sealer of BMC
// credentials (its key in data_dir), the discovery ISO server and the
// options of the leader-only controller.
type bmhParts struct {
	sealer *engine.Sealer
	iso    *isoserve.Server
	pxe    *pxeserve.Server // an infra-env's PXE kernel and initrd
}

// newBMH hands the sealing key (loaded by openStore) to the API and builds
// the ISO server over the boot selector's configs. It runs in newEngine,
// before the API is built.
func (d *daemon) newBMH() error {
	sealer := d.bmh.sealer
	srv, err := isoserve.New(isoserve.Options{
		Store: d.store, Keys: d.apiOpts.Keys, BaseURL: d.cfg.BaseURL(), Ignition: d.sel,
		Log: d.log.With("service", "iso"),
	})
	if err != nil {
		return fmt.Errorf("discovery ISO server: %w", err)
	}
	pxe, err := pxeserve.New(pxeserve.Options{Keys: d.apiOpts.Keys, BaseURL: d.cfg.BaseURL(), Source: d.sel,
		Log: d.log.With("service", "pxe")})
	if err != nil {
		return fmt.Errorf("PXE artifact server: %w", err)
	}
	d.bmh = bmhParts{sealer: sealer, iso: srv, pxe: pxe}
	d.apiOpts.Sealer = sealer
	d.apiOpts.ISOs = srv // downloads/image-url hands out its ISO URLs
	return nil
}

// mountBMH adds the discovery ISOs and the infra-envs' PXE artifacts to
// the boot HTTP server's mux.
func (d *daemon) mountBMH(mux *http.ServeMux) {
	if d.bmh.iso != nil {
		mux.Handle(isoserve.Pattern, d.bmh.iso)
	}
	if d.bmh.pxe != nil {
		mux.Handle(pxeserve.Pattern, d.bmh.pxe)
	}
}

// runBMH runs the BareMetalHost controller while this node leads, its
// writes fenced to the term it leads in.
func (d *daemon) runBMH(ctx context.Context) {
	if d.bmh.sealer == nil {
		return
	}
	d.runSealStored(ctx)
	log := d.log.With("service", "bmh")
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		engine.WhileLeader(ctx, d.store, func(ctx context.Context) {
			ctl, err := bmhctl.New(bmhctl.Options{
				Store: engine.Fence(d.store), Images: d.bmh.iso, Unseal: d.bmh.sealer.Open, Log: log,
				Loop: &d.loops.bmh,
			})
			if err != nil {
				log.Error("baremetal host controller", "err", err)
				return
			}
			log.Info("baremetal host controller started")
			ctl.Run(ctx)
		})
	}()
}

// loadSealer returns the sealer of every secret (BMC credentials, pull
// secrets, signing keys, install credentials): the rack's shared key
// ([cluster] secrets_key) on a rack member, else this appliance's own key
// in data_dir (created on first start). A rack member without the shared
// key is refused: the others could not open what it seals (the signing
// keys above all, without which no token verifies).
func (d *daemon) loadSealer() (*engine.Sealer, error) {
	if cl := d.cfg.Cluster; cl != nil && cl.SecretsKey != "" {
		return engine.LoadSealer(cl.SecretsKey)
	}
	if d.cfg.Cluster != nil {
		return nil, fmt.Errorf("%w: a rack member needs the rack's shared key: set [cluster] secrets_key (rackbootctl cluster init writes secrets.key)", engine.ErrSealKey)
	}
	return engine.LoadOrCreateSealer(d.cfg.Server.DataDir)
}

// runSealStored seals, each time this node starts leading, the secrets an
// older rackbootd stored in clear (engine.SealStoredSecrets).
func (d *daemon) runSealStored(ctx context.Context) {
	log := d.log.With("service", "state")
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		engine.WhileLeader(ctx, d.store, func(ctx context.Context) {
			n, err := engine.SealStoredSecrets(ctx, engine.Fence(d.store), d.bmh.sealer)
			switch {
			case err != nil:
				log.Warn("sealing the secrets stored in clear", "err", err)
			case n > 0:
				log.Info("sealed the secrets an older rackbootd stored in clear", "secrets", n)
			}
			<-ctx.Done()
		})
	}()
}
