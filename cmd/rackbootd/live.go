package main

import (
	"fmt"
	"path/filepath"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/boot/coreos"
	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
)

// liveProfile names the boot profile of a CoreOS image set. A configured
// profile name cannot contain "/", so the two never collide.
func liveProfile(imageSet string) string { return "coreos/" + imageSet }

// liveCacheDir is where the PXE kernels and initramfs taken out of live
// ISOs are kept.
func liveCacheDir(cfg *config.Config) string { return filepath.Join(cfg.Server.DataDir, "coreos") }

// prepareLive, with extract, takes the PXE kernel and initramfs out of each CoreOS image
// set's live ISO (once per ISO version, under data_dir/coreos) and records
// their paths in the configuration. An ISO without them is an error at the
// image set's key. Without extract it only checks that each ISO holds them
// (check-config writes nothing).
func prepareLive(cfg *config.Config, extract bool) error {
	var errs config.Errors
	for i := range cfg.ImageSets {
		l := cfg.ImageSets[i].Live
		if l == nil {
			continue
		}
		var (
			pxe coreos.PXE
			err error
		)
		if extract {
			pxe, err = coreos.ExtractPXE(l.ISO, liveCacheDir(cfg))
		} else {
			err = coreos.CheckPXE(l.ISO)
		}
		if err != nil {
			key := fmt.Sprintf("image_set[%d].live_iso", i)
			if l.Stream != "" {
				key = fmt.Sprintf("image_set[%d].coreos_stream", i)
			}
			errs = append(errs, cfg.ErrorAt(key, "image_set %q: %s", cfg.ImageSets[i].Name, err))
			continue
		}
		l.Kernel, l.Initrd = pxe.Kernel, pxe.Initrd
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// liveProfiles are the boot profiles of the CoreOS image sets: the ISO's
// kernel and initramfs, booted with seed 001's live arguments (the rootfs
// served at /images/{name}/rootfs.img, then the image set's arguments).
func liveProfiles(cfg *config.Config) []boot.Profile {
	var ps []boot.Profile
	for _, is := range cfg.ImageSets {
		l := is.Live
		if l == nil || l.Kernel == "" {
			continue
		}
		rootfs := cfg.BaseURL() + "/images/" + is.Name + "/rootfs.img"
		ps = append(ps, boot.Profile{Name: liveProfile(is.Name), Kernel: l.Kernel, Initrd: l.Initrd,
			Cmdline: coreos.LiveArgs(rootfs, l.KernelArgs)})
	}
	return ps
}
