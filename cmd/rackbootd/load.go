package main

import (
	"fmt"
	"strings"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/boot/osimages"
	"github.com/rackboot/rackboot/cmd/rackbootd/internal/config"
)

// loaded is a validated configuration and the boot catalog built from it.
type loaded struct {
	cfg      *config.Config
	catalog  *boot.Catalog
	warnings []string // "file:line:col: warning: ..."
	// osImages are the AgentServiceConfig's image sets offered to cfg
	// (osimages.go), those left out included; osImagesOut says which were
	// left out and why.
	osImages    []osimages.Set
	osImagesOut []string
}

// load reads the configuration file and builds its boot catalog. Every
// error, the catalog's included, is a config.Errors naming its position.
// With extract, the CoreOS image sets' PXE files are taken out of their
// ISOs (prepareLive); without, only looked for. extra, when not nil,
// gives the image sets the AgentServiceConfig adds (osimages.go).
func load(path string, extract bool, extra osImagesFrom) (*loaded, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	var sets []osimages.Set
	if extra != nil {
		sets = extra(cfg)
	}
	leftOut := addOSImageSets(cfg, sets)
	if err := prepareLive(cfg, extract); err != nil {
		return nil, err
	}
	profiles, hosts := bootProfiles(cfg), bootHosts(cfg)
	cat, err := boot.NewCatalog(profiles, hosts)
	if err != nil {
		return nil, locate(cfg, profiles, hosts, err)
	}
	ld := &loaded{cfg: cfg, catalog: cat, osImages: sets, osImagesOut: leftOut}
	for _, w := range leftOut {
		ld.warnings = append(ld.warnings, "warning: AgentServiceConfig "+strings.Replace(w, ":", " left out:", 1))
	}
	for _, w := range cat.Warnings() {
		ld.warnings = append(ld.warnings, cfg.ErrorAt(profileKey(cfg, w), "warning: %s", w).Error())
	}
	return ld, nil
}

func bootProfiles(cfg *config.Config) []boot.Profile {
	ps := make([]boot.Profile, len(cfg.Profiles))
	for i, p := range cfg.Profiles {
		ps[i] = boot.Profile{Name: p.Name, Kernel: p.Kernel, Initrd: p.Initrd, Cmdline: p.Cmdline, Ignition: p.Ignition, MACs: p.MACs}
	}
	return ps
}

func bootHosts(cfg *config.Config) []boot.Host {
	hs := make([]boot.Host, len(cfg.DHCP.Reservations))
	for i, r := range cfg.DHCP.Reservations {
		hs[i] = boot.Host{MAC: r.MAC, Hostname: r.Hostname}
	}
	return hs
}

// locate finds which profile or reservation made boot.NewCatalog fail, by
// building the catalog again one piece at a time, and points at it.
func locate(cfg *config.Config, profiles []boot.Profile, hosts []boot.Host, err error) error {
	var errs config.Errors
	for i, p := range profiles {
		if _, perr := boot.NewCatalog([]boot.Profile{p}, nil); perr != nil {
			key := fmt.Sprintf("profile[%d]", i)
			if p.Ignition != "" {
				key += ".ignition"
			}
			errs = append(errs, cfg.ErrorAt(key, "%s", oneLine(perr)))
		}
	}
	if len(errs) == 0 {
		for i, h := range hosts {
			if _, herr := boot.NewCatalog(profiles, []boot.Host{h}); herr != nil {
				errs = append(errs, cfg.ErrorAt(fmt.Sprintf("dhcp.reservation[%d].hostname", i), "%s", oneLine(herr)))
			}
		}
	}
	if len(errs) == 0 {
		errs = append(errs, cfg.ErrorAt("", "%s", oneLine(err)))
	}
	return errs
}

// profileKey is the key of the profile a catalog warning names.
func profileKey(cfg *config.Config, warning string) string {
	for i, p := range cfg.Profiles {
		if strings.HasPrefix(warning, fmt.Sprintf("profile %q:", p.Name)) {
			return fmt.Sprintf("profile[%d].ignition", i)
		}
	}
	return ""
}

// oneLine joins the lines of a joined error with "; ".
func oneLine(err error) string {
	var lines []string
	for l := range strings.SplitSeq(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}
