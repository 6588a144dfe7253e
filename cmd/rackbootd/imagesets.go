package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/validation"
)

// imageSetSyncTimeout bounds writing the file's image sets to the store.
const imageSetSyncTimeout = 30 * time.Second

// syncImageSets makes the store's image sets that the configuration file
// created (Source "config") those of sets: a PutImageSet for each new or
// changed one, a DeleteImageSet for each that left the file. Image sets
// made otherwise are left alone, unless the file names one of them, which
// it then takes over. It writes, so it runs on the leader.
func syncImageSets(ctx context.Context, st engine.Store, sets []config.ImageSet) (changed int, err error) {
	want := map[string]engine.ImageSet{}
	for _, s := range sets {
		want[s.Name] = imageSet(s)
	}
	var cmds []engine.Command
	st.Read(func(m *engine.Model) {
		for _, s := range sets {
			if cur, ok := m.ImageSet(s.Name); !ok || !sameImageSet(cur, want[s.Name]) {
				cmds = append(cmds, &engine.PutImageSet{ImageSet: want[s.Name]})
			}
		}
		for is := range m.ImageSets() {
			if _, keep := want[is.Name]; !keep && is.Source == engine.ImageSetSourceConfig {
				cmds = append(cmds, &engine.DeleteImageSet{Name: is.Name})
			}
		}
	})
	var errs []error
	for _, c := range cmds {
		if _, err := st.Apply(ctx, c); err != nil && !errors.Is(err, engine.ErrNotFound) {
			errs = append(errs, fmt.Errorf("image sets: %w", err))
			continue
		}
		changed++
	}
	return changed, errors.Join(errs...)
}

// imageSet is the engine's image set of a configured one.
func imageSet(s config.ImageSet) engine.ImageSet {
	is := engine.ImageSet{Name: s.Name, Version: s.Version, CPUArchitecture: s.CPUArch, Profile: s.Profile,
		Source: engine.ImageSetSourceConfig, BaseISO: s.BaseISO}
	if t := s.Thresholds; t != nil {
		is.Thresholds = &engine.Thresholds{Profile: t.Profile, Master: minimums(t.Master), Worker: minimums(t.Worker),
			SingleNode: minimums(t.SingleNode), MemoryToleranceMiB: t.MemoryToleranceMiB,
			DiskSpeedThresholdMs: t.DiskSpeedThresholdMs}
	}
	imageSetInstall(&is, s.Install)
	if l := s.Live; l != nil {
		is.Profile = liveProfile(s.Name)
		is.LiveRootfs = engine.DiskImage{Path: l.Rootfs, SHA256: l.RootfsSHA256}
	}
	return is
}

func minimums(r validation.Requirements) engine.Minimums {
	return engine.Minimums{CPUCores: r.CPUCores, MemoryMiB: r.MemoryMiB, DiskGB: r.DiskGB}
}

// sameImageSet compares two image sets but for their Meta.
func sameImageSet(a, b engine.ImageSet) bool {
	ta, tb := a.Thresholds, b.Thresholds
	if (ta == nil) != (tb == nil) || (ta != nil && *ta != *tb) {
		return false
	}
	a.Meta, b.Meta, a.Thresholds, b.Thresholds = engine.Meta{}, engine.Meta{}, nil, nil
	return a == b
}

// syncConfigImageSets writes d's configured image sets to the store, on
// the leader only (a follower's would be refused); it logs what it did.
func (d *daemon) syncConfigImageSets(ctx context.Context, cfg *config.Config) error {
	if !d.store.Leader() {
		d.log.Info("not the leader: the configured image sets are left to it", "image_sets", len(cfg.ImageSets))
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, imageSetSyncTimeout)
	defer cancel()
	n, err := syncImageSets(ctx, d.store, cfg.ImageSets)
	if n > 0 {
		d.log.Info("image sets synced from the configuration", "image_sets", len(cfg.ImageSets), "changes", n)
	}
	return err
}

// syncImageSetsOnLeading writes the file's image sets each time this node
// becomes the leader, after a barrier (so that it compares them with every
// committed write): sets added to this appliance's file while another led
// take effect when it leads. Every appliance of a rack is meant to have
// the same sets (docs/config.md); one that differed is logged.
func (d *daemon) syncImageSetsOnLeading(ctx context.Context) {
	engine.WhileLeader(ctx, d.store, func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, imageSetSyncTimeout)
		defer cancel()
		if err := d.store.Barrier(ctx); err != nil {
			d.log.Warn("image sets not synced on becoming leader", "err", err)
			return
		}
		sets := *d.imageSets.Load()
		n, err := syncImageSets(ctx, d.store, sets)
		if err != nil {
			d.log.Warn("image sets not synced on becoming leader", "err", err)
		}
		if n > 0 {
			d.log.Warn("the rack's image sets differed from this appliance's configuration file; the file's now apply",
				"image_sets", len(sets), "changes", n)
		}
	})
}
