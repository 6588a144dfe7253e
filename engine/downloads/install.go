package downloads

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/rackboot/rackboot/boot/installer"
	"github.com/rackboot/rackboot/boot/nmstate"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bmhctl"
	"github.com/rackboot/rackboot/engine/hosts"
	"github.com/rackboot/rackboot/engine/infraenvs"
	"github.com/rackboot/rackboot/engine/install"
	"github.com/rackboot/rackboot/engine/models"
)

// HostTokenTTL is how long the host-scoped token of an install Ignition
// (the first boot's progress report) is valid.
const HostTokenTTL = 7 * 24 * time.Hour

// keyfileDir is where the installed system's NetworkManager keyfiles go.
const keyfileDir = "/etc/NetworkManager/system-connections"

// DiskImagePath is the boot server path of an image set's disk image.
func DiskImagePath(imageSet string) string {
	return "/images/" + url.PathEscape(imageSet) + "/disk.img"
}

// InstallStatuses are the host statuses whose agent may fetch its install
// Ignition.
func InstallStatuses() []string {
	return []string{models.HostStatusInstalling, models.HostStatusInstallingInProgress}
}

// InstallStep hands h the install step when it is installing: once, as it
// moves the host to installing-in-progress at the same time (a host that
// already has it is not handed it again). nil: no step now.
func (s *Service) InstallStep(ctx context.Context, h engine.Host) (*models.Step, error) {
	if h.Status != models.HostStatusInstalling {
		return nil, nil
	}
	args, err := s.InstallArgs(h)
	if err != nil {
		return nil, err
	}
	sent, err := s.o.Hosts.InstallStepSent(ctx, h, args.BootDevice, string(args.Role))
	if err != nil || !sent {
		return nil, err // not sent: another poll handed it out first
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return &models.Step{StepType: models.StepTypeInstall, StepID: hosts.StepID(models.StepTypeInstall), Args: []string{string(b)}}, nil
}

// InstallArgs are the install step's arguments for h: its disk and role,
// its cluster's disk image on the boot server, its install Ignition on
// the REST API, whether its BareMetalHost reboots it and which disks that
// wipes, and its installer arguments. A cluster whose image set has no
// disk image, or a host with no installation disk, is ErrConflict.
func (s *Service) InstallArgs(h engine.Host) (models.InstallStepArgs, error) {
	var (
		is   engine.ImageSet
		ok   bool
		wipe []string
	)
	s.o.Store.Read(func(m *engine.Model) {
		c, _ := m.Cluster(h.ClusterID)
		is, ok = m.ClusterImageSet(c)
		if b, found := m.BareMetalHost(h.BMHName); found && h.BMHName != "" {
			wipe = bmhctl.WipeDisks(b, h)
		}
	})
	if !ok || is.DiskImage.Path == "" {
		return models.InstallStepArgs{}, fmt.Errorf("%w: host %s: its cluster's image set has no disk image", hosts.ErrConflict, h.ID)
	}
	d := install.HostDetails(h)
	if d.BootDevice() == "" {
		return models.InstallStepArgs{}, fmt.Errorf("%w: host %s has no installation disk", hosts.ErrConflict, h.ID)
	}
	role := models.HostRole(h.Role)
	if h.Bootstrap {
		role = models.HostRoleBootstrap
	}
	a := models.InstallStepArgs{Role: role, ClusterID: h.ClusterID, HostID: h.ID, InfraEnvID: h.InfraEnvID,
		BootDevice: d.BootDevice(), ImageURL: s.o.BootURL + DiskImagePath(is.Name),
		ImageSHA256: is.DiskImage.SHA256, ImageSize: is.DiskImage.Size,
		IgnitionURL:    s.infraEnvURL(h.InfraEnvID, "/hosts/"+h.ID+"/downloads/ignition"),
		ExternalReboot: h.BMHName != "", WipeDisks: wipe}
	if h.InstallerArgs != "" {
		_ = json.Unmarshal([]byte(h.InstallerArgs), &a.InstallerArgs) // checked when it was set
	}
	return a, nil
}

// HostIgnition is the install Ignition of host id of infra-env ie, which
// only a host that is installing may fetch (else ErrConflict): its role's
// config with its hostname, static network keyfiles, Ignition override
// and the first boot's progress report with a host-scoped token.
func (s *Service) HostIgnition(ie, id string) ([]byte, error) {
	h, err := s.o.Hosts.Host(ie, id)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(InstallStatuses(), h.Status) {
		return nil, fmt.Errorf("%w: host %s is %s, not installing", hosts.ErrConflict, id, h.Status)
	}
	var (
		role []byte
		keys map[string][]byte
	)
	s.o.Store.Read(func(m *engine.Model) {
		a := install.Artifacts(m, h.ClusterID)
		if a == nil {
			err = fmt.Errorf("%w: cluster %s has no install configs yet", hosts.ErrConflict, h.ClusterID)
			return
		}
		if role, err = a.RoleConfig(install.Host(h)); err != nil {
			return
		}
		keys, err = hostKeyfiles(m, h)
	})
	if err != nil {
		return nil, fmt.Errorf("install ignition of host %s: %w", h.ID, err)
	}
	tok, err := s.o.Keys.NewHostToken(h.InfraEnvID, h.ID, s.o.Now().Add(HostTokenTTL))
	if err != nil {
		return nil, fmt.Errorf("host token: %w", err)
	}
	return installer.HostIgnition(role, installer.HostParams{
		Hostname: install.HostDetails(h).Hostname, NetworkKeyfiles: keys, IgnitionOverride: h.IgnitionOverride,
		FirstBoot: installer.FirstBoot{Token: tok, ProgressURL: s.infraEnvURL(h.InfraEnvID, "/hosts/"+h.ID+"/progress")},
	})
}

// hostKeyfiles are the NetworkManager keyfiles of the static network
// config that h's infra-env selects for one of h's MACs (nil: none).
func hostKeyfiles(m *engine.Model, h engine.Host) (map[string][]byte, error) {
	ie, ok := m.InfraEnv(h.InfraEnvID)
	if !ok {
		return nil, nil
	}
	macs := install.HostDetails(h).MACs
	for _, c := range infraenvs.StaticNetwork(m, ie) {
		if !slices.ContainsFunc(c.MACInterfaceMap, func(mi nmstate.MACInterface) bool {
			return slices.Contains(macs, strings.ToLower(mi.MACAddress))
		}) {
			continue
		}
		files, err := nmstate.ConvertHosts([]nmstate.HostStaticNetworkConfig{c})
		if err != nil {
			return nil, fmt.Errorf("static network of host %s: %w", h.ID, err)
		}
		out := map[string][]byte{}
		for _, f := range files {
			if base := path.Base(f.Name); strings.HasSuffix(base, ".nmconnection") {
				out[path.Join(keyfileDir, base)] = f.Data
			}
		}
		return out, nil
	}
	return nil, nil
}
