package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/rackboot/rackboot/boot/osimages"
	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
	"github.com/rackboot/rackboot/engine"
)

// The AgentServiceConfig (upstream's: the cluster-scoped one named
// "agent") lists in spec.osImages the live ISO and rootfs of each OpenShift
// version and architecture. Every node turns them into CoreOS image sets,
// as if the configuration file had an [[image_set]] with live_iso and
// live_rootfs for each: it makes the files local (boot/osimages: paths in
// place, a mirror's URLs downloaded once under data_dir/coreos/osimages),
// then reloads, and the reload adds them to the file's image sets (the
// file's own image set of the same name wins). An entry that cannot be
// fetched or is no live ISO is logged and left out, and so is, with a
// reload warning, one whose architecture has no rackboot-agent in
// server.agent_dir; a spec that does not parse
// leaves the image sets as they were.

// Upstream's AgentServiceConfig.
const (
	ascGroup = "agent-install.openshift.io"
	ascKind  = "AgentServiceConfig"
	ascName  = "agent"
)

// osImagesDir is where the osImages downloads go.
func osImagesDir(cfg *config.Config) string {
	return filepath.Join(cfg.Server.DataDir, "coreos", "osimages")
}

// osImageSets are the image sets the AgentServiceConfig adds (nil: none).
func (d *daemon) osImageSets() []config.ImageSet {
	if p := d.osImages.Load(); p != nil {
		return *p
	}
	return nil
}

// runOSImages follows the AgentServiceConfig on this node until ctx ends.
func (d *daemon) runOSImages(ctx context.Context) {
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		f := &osimages.Fetcher{Dir: osImagesDir(d.cfg)} // data_dir cannot change on reload
		ascKey := engine.ObjectRef{Group: ascGroup, Kind: ascKind, Name: ascName}.Key()
		last := "null"
		for ctx.Err() == nil {
			sub := d.store.Subscribe(ctx)
			last = d.syncOSImages(ctx, f, last)
			for ch := range sub {
				if ch.Kind == engine.KindAll || ch.Kind == engine.KindObject && ch.ID == ascKey {
					last = d.syncOSImages(ctx, f, last)
				}
			}
		}
	}()
}

// syncOSImages reads the AgentServiceConfig's osImages and, when they are
// not last (their JSON), resolves them and asks the main loop to reload.
// It returns the osImages it now follows.
func (d *daemon) syncOSImages(ctx context.Context, f *osimages.Fetcher, last string) string {
	var spec json.RawMessage
	d.store.Read(func(m *engine.Model) {
		if o, ok := m.Object(engine.ObjectRef{Group: ascGroup, Kind: ascKind, Name: ascName}.Key()); ok {
			var body struct {
				Spec json.RawMessage `json:"spec"`
			}
			if json.Unmarshal(o.Body, &body) == nil {
				spec = body.Spec
			}
		}
	})
	imgs, err := osimages.Parse(spec)
	if err != nil {
		d.log.Error("AgentServiceConfig: the image sets of spec.osImages stay as they were", "err", err.Error())
		return last
	}
	key, _ := json.Marshal(imgs) // checked strings: cannot fail
	if string(key) == last {
		return last
	}
	var sets []config.ImageSet
	for _, img := range imgs {
		s, err := f.Resolve(ctx, img)
		if err != nil {
			d.log.Error("AgentServiceConfig: an osImages entry is left out", "image_set", osimages.Name(img), "err", err.Error())
			continue
		}
		sets = append(sets, config.ImageSet{Name: s.Name, Version: s.Version, CPUArch: s.Arch,
			Live: &config.Live{Arch: s.Arch, ISO: s.ISO, Rootfs: s.Rootfs}})
	}
	d.log.Info("AgentServiceConfig: osImages changed", "entries", len(imgs), "image_sets", len(sets))
	d.osImages.Store(&sets)
	select {
	case d.osImagesChanged <- struct{}{}:
	default: // a reload is already due
	}
	return string(key)
}

// addOSImageSets appends extra to cfg's image sets, with the
// rackboot-agent of their architecture; one whose name the file has, or
// whose agent is missing, is left out with a warning.
func addOSImageSets(cfg *config.Config, extra []config.ImageSet) (warnings []string) {
	for _, s := range extra {
		if slices.ContainsFunc(cfg.ImageSets, func(f config.ImageSet) bool { return f.Name == s.Name }) {
			warnings = append(warnings, "warning: AgentServiceConfig osImages "+s.Name+": the configuration file's image set of that name is used")
			continue
		}
		if err := cfg.AddLiveAgent(s.Live.Arch); err != nil {
			warnings = append(warnings, fmt.Sprintf("warning: AgentServiceConfig osImages %s left out: its hosts need rackboot-agent (server.agent_dir): %v", s.Name, err))
			continue
		}
		cfg.ImageSets = append(cfg.ImageSets, s)
	}
	return warnings
}
