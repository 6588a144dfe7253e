package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/rackboot/rackboot/boot/coreos"
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
// records them there (sets.json, read at the next start), then reloads,
// and the reload adds them to the file's image sets (the file's own image
// set of the same name wins). An entry that cannot be fetched or is no
// live ISO is logged and left out, and so is, with a reload warning, one
// whose architecture has no rackboot-agent in server.agent_dir; a spec
// that does not parse leaves the image sets as they were. The
// AgentServiceConfig's status says which were left out (ascstatus.go).

// Upstream's AgentServiceConfig.
const (
	ascGroup = "agent-install.openshift.io"
	ascKind  = "AgentServiceConfig"
	ascName  = "agent"
)

// osImagesFrom gives load the osImages image sets for a configuration
// (nil: none).
type osImagesFrom func(cfg *config.Config) []osimages.Set

// osImagesDir is where the osImages downloads and sets.json go.
func osImagesDir(cfg *config.Config) string {
	return filepath.Join(cfg.Server.DataDir, "coreos", "osimages")
}

// savedOSImages are the sets recorded by the last run (none when the
// file is missing or unreadable).
func savedOSImages(cfg *config.Config) []osimages.Set {
	b, err := os.ReadFile(filepath.Join(osImagesDir(cfg), "sets.json"))
	if err != nil {
		return nil
	}
	var sets []osimages.Set
	if json.Unmarshal(b, &sets) != nil {
		return nil
	}
	return sets
}

// saveOSImages records sets for the next start.
func saveOSImages(dir string, sets []osimages.Set) error {
	b, err := json.Marshal(sets)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(dir, ".sets.json.tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "sets.json"))
}

// currentOSImages are the sets the running configuration was built with.
func (d *daemon) currentOSImages(*config.Config) []osimages.Set {
	if p := d.osImages.Load(); p != nil {
		return *p
	}
	return nil
}

// runOSImages follows the AgentServiceConfig on this node until ctx ends.
func (d *daemon) runOSImages(ctx context.Context) {
	dir := osImagesDir(d.cfg) // before the loop runs reloads; data_dir cannot change on reload
	d.wg.Add(2)
	go func() {
		defer d.wg.Done()
		d.asc.run(ctx)
	}()
	go func() {
		defer d.wg.Done()
		f := &osimages.Fetcher{Dir: dir}
		ascKey := engine.ObjectRef{Group: ascGroup, Kind: ascKind, Name: ascName}.Key()
		last := "" // no osImages followed yet
		for ctx.Err() == nil {
			sub := d.store.Subscribe(ctx)
			last = d.syncOSImages(ctx, f, dir, last)
			for ch := range sub {
				if ch.Kind == engine.KindAll || ch.Kind == engine.KindObject && ch.ID == ascKey {
					last = d.syncOSImages(ctx, f, dir, last)
				}
			}
		}
	}()
}

// syncOSImages reads the AgentServiceConfig's osImages and, when they are
// not last (their JSON), resolves them; when that changes the sets in
// use, it records them and asks the main loop to reload. It returns the
// osImages it now follows.
func (d *daemon) syncOSImages(ctx context.Context, f *osimages.Fetcher, dir, last string) string {
	spec := d.ascSpec()
	imgs, err := osimages.Parse(spec)
	if err != nil {
		d.log.Error("AgentServiceConfig: the image sets of spec.osImages stay as they were", "err", err.Error())
		d.asc.synced(ctx, err, nil, false)
		return last
	}
	key, _ := json.Marshal(imgs) // checked strings: cannot fail
	if string(key) == last {
		d.asc.publish(ctx) // the object changed otherwise (its status, say)
		return last
	}
	sets := []osimages.Set{}
	var leftOut []string
	for _, img := range imgs {
		s, err := f.Resolve(ctx, img)
		if err != nil {
			d.log.Error("AgentServiceConfig: an osImages entry is left out", "image_set", osimages.Name(img), "err", err.Error())
			leftOut = append(leftOut, err.Error()) // it names the entry
			continue
		}
		sets = append(sets, s)
	}
	if ctx.Err() != nil {
		return last
	}
	if slices.Equal(sets, d.currentOSImages(nil)) {
		d.asc.synced(ctx, nil, leftOut, false)
		return string(key)
	}
	d.asc.synced(ctx, nil, leftOut, true) // the reload reports the rest
	if err := saveOSImages(dir, sets); err != nil {
		d.log.Warn("AgentServiceConfig: the image sets are not recorded for the next start", "err", err.Error())
	}
	d.log.Info("AgentServiceConfig: osImages changed", "entries", len(imgs), "image_sets", len(sets))
	d.osImages.Store(&sets)
	select {
	case d.osImagesChanged <- struct{}{}:
	default: // a reload is already due
	}
	return string(key)
}

// ascSpec is the AgentServiceConfig's spec (nil when there is none).
func (d *daemon) ascSpec() json.RawMessage {
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
	return spec
}

// addOSImageSets appends sets to cfg's image sets, with the rackboot-agent
// of their architecture; one whose name the file has, whose ISO is gone
// or holds no PXE files, or whose agent is missing, is left out
// ("osImages <name>: <why>", as the AgentServiceConfig's status says).
func addOSImageSets(cfg *config.Config, sets []osimages.Set) (leftOut []string) {
	for _, s := range sets {
		var err error
		switch {
		case slices.ContainsFunc(cfg.ImageSets, func(f config.ImageSet) bool { return f.Name == s.Name }):
			err = fmt.Errorf("the configuration file's image set of that name is used")
		case regularFile(s.Rootfs) != nil:
			err = regularFile(s.Rootfs)
		default:
			if err = coreos.CheckPXE(s.ISO); err == nil {
				err = cfg.AddLiveAgent(s.Arch)
			}
		}
		if err != nil {
			leftOut = append(leftOut, fmt.Sprintf("osImages %s: %v", s.Name, err))
			continue
		}
		cfg.ImageSets = append(cfg.ImageSets, config.ImageSet{Name: s.Name, Version: s.Version, CPUArch: s.Arch,
			Live: &config.Live{Arch: s.Arch, ISO: s.ISO, Rootfs: s.Rootfs}})
	}
	return leftOut
}

func regularFile(p string) error {
	fi, err := os.Stat(p)
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", p)
	}
	return err
}
