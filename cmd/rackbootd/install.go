package main

import (
	"context"
	"path/filepath"

	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/install"
)

// installWorkDir is where openshift-install runs (a fresh directory per
// run, removed afterwards), under data_dir.
const installWorkDir = "install"

// runInstall runs the install controller while this node leads, its
// writes fenced to the term it leads in: it generates each cluster's
// install configs with its image set's generator and drives the
// installation to installed (or to error at [engine] install_timeout).
func (d *daemon) runInstall(ctx context.Context) {
	log := d.log.With("service", "install")
	gens := install.DefaultGenerators(filepath.Join(d.cfg.Server.DataDir, installWorkDir), log)
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		engine.WhileLeader(ctx, d.store, func(ctx context.Context) {
			ctl, err := install.NewController(install.Options{Store: engine.Fence(d.store), Generators: gens,
				Timeout: d.cfg.Engine.InstallTimeout, Log: log, Loop: &d.loops.install})
			if err != nil {
				log.Error("install controller not started", "err", err)
				return
			}
			ctl.Run(ctx)
		})
	}()
}

// imageSetInstall copies an image set's install settings into the
// engine's image set.
func imageSetInstall(is *engine.ImageSet, in config.ImageSetInstall) {
	if in.DiskImage != "" {
		is.DiskImage = engine.DiskImage{Path: in.DiskImage, SHA256: in.DiskImageSHA256, Size: in.DiskImageSize}
	}
	is.Generator, is.RoleIgnitionDir, is.OpenShiftInstall = in.Generator, in.RoleIgnitionDir, in.OpenShiftInstall
	is.ReleaseImage = in.ReleaseImage
	is.Discovery = engine.DiscoveryArtifacts{KernelSHA256: in.KernelSHA256, InitrdSHA256: in.InitrdSHA256,
		RootfsSHA256: in.RootfsSHA256, ISOSHA256: in.ISOSHA256}
}
